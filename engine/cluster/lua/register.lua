-- KEYS[1] runners hash, KEYS[2] health hash, KEYS[3] heartbeats zset, KEYS[4] machine id counter,
-- KEYS[5] since hash (address -> Redis time in ms of its registration), KEYS[6] returning set
-- (runners that settle for the rejoin time from their registration).
-- ARGV[1] runner address, ARGV[2] encoded runner, ARGV[3] '1' healthy / '0' not, ARGV[4] how long a
-- runner registering again (it was forgotten: frozen, starved or cut off) settles, in ms; 0 for a
-- runner's first registration.
-- Registers (or re-registers) a runner with a fresh heartbeat (Redis server time, so the nodes'
-- clocks do not matter) and returns a new machine id. A returning runner settles only if another
-- healthy runner has been registered for longer than that time (the cluster went on without it);
-- after Redis lost every runner they all come back as equals.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local settleMs = tonumber(ARGV[4])
local settle = false
if settleMs > 0 then
  local since = redis.call('HGETALL', KEYS[5])
  for i = 1, #since, 2 do
    local other = since[i]
    if other ~= ARGV[1] and tonumber(since[i + 1]) <= now - settleMs
      and redis.call('HEXISTS', KEYS[1], other) == 1
      and (redis.call('HGET', KEYS[2], other) or '1') == '1' then
      settle = true
      break
    end
  end
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[3], now, ARGV[1])
redis.call('HSET', KEYS[5], ARGV[1], now)
if settle then
  redis.call('SADD', KEYS[6], ARGV[1])
else
  redis.call('SREM', KEYS[6], ARGV[1])
end
return redis.call('INCR', KEYS[4])
