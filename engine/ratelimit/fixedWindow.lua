-- KEYS[1] = the counter of one key and window; ARGV[1] = epoch ms after which it may expire.
-- Counts the hit and sets the expiry in one atomic step, so a counter can never be left without
-- one (which would pin a stale window in Redis forever). Returns the count including this hit.
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('PEXPIREAT', KEYS[1], ARGV[1])
end
return count
