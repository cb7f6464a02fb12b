-- KEYS: one lock key per shard. ARGV[1] runner address, ARGV[2] lease in ms.
-- Takes every free lock (SET NX PX) and extends the ones this runner already holds; returns the
-- 1-based positions of the keys the runner holds afterwards. A lock held by another runner is
-- left alone until it expires.
local held = {}
for i, key in ipairs(KEYS) do
  if redis.call('SET', key, ARGV[1], 'NX', 'PX', ARGV[2]) then
    held[#held + 1] = i
  elseif redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    held[#held + 1] = i
  end
end
return held
