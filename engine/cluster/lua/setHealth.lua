-- KEYS[1] runners hash, KEYS[2] health hash. ARGV[1] runner address, ARGV[2] '1' or '0'.
-- Records a registered runner's health; an unknown runner is left unknown.
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
  return 1
end
return 0
