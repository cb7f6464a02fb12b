-- KEYS[1] runners hash, KEYS[2] health hash, KEYS[3] heartbeats zset.
-- ARGV[1] how old a heartbeat may be before its runner counts as gone, in ms.
-- Forgets the runners whose last heartbeat is older than that (a runner that was only slow or
-- frozen registers itself again), then returns the others as a flat list: runner, health, runner, ...
-- Only while some runner's heartbeat is fresh (younger than three quarters of ARGV[1]): when every
-- heartbeat is late (Redis slow, or every node starved on an overloaded machine), a silence says
-- nothing about one runner, and nobody is forgotten.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local newest = redis.call('ZREVRANGE', KEYS[3], 0, 0, 'WITHSCORES')
local someoneFresh = newest[2] and tonumber(newest[2]) >= now - math.floor(tonumber(ARGV[1]) * 3 / 4)
local stale = someoneFresh and redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. (now - tonumber(ARGV[1]))) or {}
for _, address in ipairs(stale) do
  redis.call('HDEL', KEYS[1], address)
  redis.call('HDEL', KEYS[2], address)
  redis.call('ZREM', KEYS[3], address)
end
local out = {}
local live = redis.call('ZRANGE', KEYS[3], 0, -1)
for _, address in ipairs(live) do
  local runner = redis.call('HGET', KEYS[1], address)
  if runner then
    out[#out + 1] = runner
    out[#out + 1] = redis.call('HGET', KEYS[2], address) or '1'
  end
end
return out
