-- Keys the nodes of one deployment share (signing real-time tokens), created once on first use.
CREATE TABLE server_keys (
  name       text PRIMARY KEY,
  key        bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
