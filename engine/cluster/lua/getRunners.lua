-- KEYS[1] runners hash, KEYS[2] health hash, KEYS[3] heartbeats zset, KEYS[4] returning set,
-- KEYS[5] since hash.
-- ARGV[1] how old a heartbeat may be before its runner counts as gone, in ms; ARGV[2] how long a
-- returning runner settles from its registration, in ms.
-- Forgets the runners whose last heartbeat is older than that (a runner that was only slow or
-- frozen registers itself again), then returns the others as a flat list: runner, health, runner, ...
-- Only while some runner's heartbeat is fresh (younger than three quarters of ARGV[1]): when every
-- heartbeat is late (Redis slow, or every node starved on an overloaded machine), a silence says
-- nothing about one runner, and nobody is forgotten.
-- A runner that registered again after being forgotten is listed unhealthy (so it is given no
-- shards) for the rejoin time from its registration, while another runner is healthy and settled: a node
-- back from a freeze first works through what piled up while it was away, and shards handed to it
-- at once waited for it (seconds, on a busy machine). While no live runner is settled, none is
-- held back (register.lua sets no rejoin time when the cluster did not go on without the runner).
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local newest = redis.call('ZREVRANGE', KEYS[3], 0, 0, 'WITHSCORES')
local someoneFresh = newest[2] and tonumber(newest[2]) >= now - math.floor(tonumber(ARGV[1]) * 3 / 4)
local stale = someoneFresh and redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. (now - tonumber(ARGV[1]))) or {}
for _, address in ipairs(stale) do
  redis.call('HDEL', KEYS[1], address)
  redis.call('HDEL', KEYS[2], address)
  redis.call('SREM', KEYS[4], address)
  redis.call('HDEL', KEYS[5], address)
  redis.call('ZREM', KEYS[3], address)
end
local rows = {}
local someoneSettled = false
local live = redis.call('ZRANGE', KEYS[3], 0, -1)
for _, address in ipairs(live) do
  local runner = redis.call('HGET', KEYS[1], address)
  if runner then
    local health = redis.call('HGET', KEYS[2], address) or '1'
    local settling = false
    if redis.call('SISMEMBER', KEYS[4], address) == 1 then
      settling = tonumber(redis.call('HGET', KEYS[5], address) or '0') + tonumber(ARGV[2]) > now
      if not settling then redis.call('SREM', KEYS[4], address) end
    end
    if health == '1' and not settling then someoneSettled = true end
    rows[#rows + 1] = { runner, health, settling }
  end
end
local out = {}
for _, row in ipairs(rows) do
  out[#out + 1] = row[1]
  out[#out + 1] = (row[3] and someoneSettled) and '0' or row[2]
end
return out
