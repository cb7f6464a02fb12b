-- Ownership epochs of the cluster's shards (fencing tokens; engine/cluster/epochs.ts): each time a
-- node takes a shard the epoch goes up, and a node acts for a shard only while the epoch it took is
-- still this one. One row per shard (`group:n`) ever taken; a single node never writes here.
CREATE TABLE shard_epochs (
  shard text PRIMARY KEY,
  epoch bigint NOT NULL,
  owner text NOT NULL,
  taken_at timestamptz NOT NULL DEFAULT now()
);
