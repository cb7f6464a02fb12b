-- KEYS[1] heartbeats zset, KEYS[2..] one lock key per shard. ARGV[1] runner address, ARGV[2] lease in ms.
-- The runner's heartbeat (only if it is registered) and, for each lock it still holds, a new
-- lease; returns the 1-based positions (among the lock keys) of the locks it holds. A lock that
-- expired or went to another runner is not taken back: the runner learns it has lost that shard.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('ZADD', KEYS[1], 'XX', now, ARGV[1])
local held = {}
for i = 2, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[2])
    held[#held + 1] = i - 1
  end
end
return held
