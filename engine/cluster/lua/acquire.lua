-- KEYS[1] heartbeats zset, KEYS[2..] one lock key per shard. ARGV[1] runner address, ARGV[2] lease
-- in ms, ARGV[3] how old a heartbeat may be before its runner counts as gone, in ms.
-- Takes every free lock (SET NX PX), extends the ones this runner already holds, and takes over
-- the locks of a runner that is gone (no heartbeat, or none for ARGV[3] ms) without waiting for
-- their lease: that runner may only be frozen, and the shards' epochs in PostgreSQL fence what it
-- still writes. Only a runner whose own heartbeat is fresh (younger than three quarters of ARGV[3])
-- takes anything over: when every heartbeat is late (Redis slow, or every node starved on an
-- overloaded machine), nobody's silence means it is gone, and moving shards would only add load.
-- Returns the 1-based positions (among the lock keys) of the locks held afterwards.
local t = redis.call('TIME')
local now = t[1] * 1000 + math.floor(t[2] / 1000)
local oldest = now - tonumber(ARGV[3])
local mine = redis.call('ZSCORE', KEYS[1], ARGV[1])
local mayTake = mine and tonumber(mine) >= now - math.floor(tonumber(ARGV[3]) * 3 / 4)
local held = {}
for i = 2, #KEYS do
  local key = KEYS[i]
  if redis.call('SET', key, ARGV[1], 'NX', 'PX', ARGV[2]) then
    held[#held + 1] = i - 1
  else
    local owner = redis.call('GET', key)
    if owner == ARGV[1] then
      redis.call('PEXPIRE', key, ARGV[2])
      held[#held + 1] = i - 1
    else
      local beat = redis.call('ZSCORE', KEYS[1], owner)
      if mayTake and ((not beat) or tonumber(beat) < oldest) then
        redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
        held[#held + 1] = i - 1
      end
    end
  end
end
return held
