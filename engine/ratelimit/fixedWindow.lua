-- KEYS[1] = counter key of one window; ARGV[1] = epoch ms when the window ends.
-- Counts the hit and lets the key expire with its window, in one atomic step.
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('PEXPIREAT', KEYS[1], ARGV[1])
end
return count
