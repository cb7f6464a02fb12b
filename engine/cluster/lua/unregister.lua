-- KEYS[1] runners hash, KEYS[2] health hash, KEYS[3] heartbeats zset, KEYS[4] returning set,
-- KEYS[5] since hash.
-- ARGV[1] runner address, ARGV[2] how old a heartbeat may be before its runner counts as gone, in ms.
-- Removes the runner, and with it every runner whose heartbeat is older than that.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. (now - tonumber(ARGV[2])))
gone[#gone + 1] = ARGV[1]
for _, address in ipairs(gone) do
  redis.call('HDEL', KEYS[1], address)
  redis.call('HDEL', KEYS[2], address)
  redis.call('SREM', KEYS[4], address)
  redis.call('HDEL', KEYS[5], address)
  redis.call('ZREM', KEYS[3], address)
end
return #gone
