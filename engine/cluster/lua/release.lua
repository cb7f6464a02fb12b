-- KEYS: lock keys. ARGV[1] runner address.
-- Deletes the locks this runner holds among KEYS; a lock another runner holds stays.
local released = 0
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('DEL', key)
    released = released + 1
  end
end
return released
