-- The profile (docs/decisions.md, "Profile endpoints"): a person's own photo, and what tells their
-- sessions apart in its list.

-- A person's uploaded photo (PNG, JPG or WebP up to 1 MB, checked by its bytes), kept in the
-- database like channel icons so every node serves it; `users.avatar_url` names it, versioned.
CREATE TABLE user_avatars (
  user_id    integer PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
  mime       text NOT NULL,
  bytes      bytea NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- The browser and address a session began from (null for sessions begun before this).
ALTER TABLE sessions ADD COLUMN user_agent text, ADD COLUMN ip text;
