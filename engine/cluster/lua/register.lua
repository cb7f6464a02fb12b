-- KEYS[1] runners hash, KEYS[2] health hash, KEYS[3] heartbeats zset, KEYS[4] machine id counter.
-- ARGV[1] runner address, ARGV[2] encoded runner, ARGV[3] '1' healthy / '0' not.
-- Registers (or re-registers) a runner with a fresh heartbeat (Redis server time, so the nodes'
-- clocks do not matter) and returns a new machine id.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[3], now, ARGV[1])
return redis.call('INCR', KEYS[4])
