-- The group commit's write (store/conversations `writeAppends`, store/appendWriter): appends to
-- many conversations as one statement. A function so that each session plans it once: sent as a
-- statement it was parsed and planned on every write, which cost PostgreSQL more than executing
-- it for the few messages a write carries under moderate load (docs/decisions.md, "The write path").
--
-- Each conversation's per-message columns are set to what its actor computed, only if the row is
-- still the one the actor saw (`last_seq` = `prev_seq`, and the same `version`: nothing else
-- updated it); its messages are inserted and their report facts recorded. A conversation that
-- changed is left out entirely. The answer: each new message's id, then each written
-- conversation's new version.
CREATE FUNCTION kotak_append_messages(convs json, msgs json, facts json)
RETURNS TABLE (c bigint, seq integer, id bigint, version bigint)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH u AS (
    -- Times travel as epoch milliseconds: JSON.stringify is several times slower with Dates.
    SELECT j.id, j.prev_seq, j.version, j.last_seq, to_timestamp(j.updated_at / 1000) AS updated_at,
      to_timestamp(j.last_message_at / 1000) AS last_message_at, j.preview,
      to_timestamp(j.last_in_at / 1000) AS last_in_at, to_timestamp(j.last_out_at / 1000) AS last_out_at,
      to_timestamp(j.first_in_at / 1000) AS first_in_at,
      to_timestamp(j.first_response_at / 1000) AS first_response_at, j.unread_count, j.notes_count,
      to_timestamp(j.waiting_since / 1000) AS waiting_since, to_timestamp(j.episode_at / 1000) AS episode_at,
      to_timestamp(j.episode_replied_at / 1000) AS episode_replied_at, j.reply_state, j.status
    FROM json_to_recordset(convs) AS j(
      id bigint, prev_seq integer, version bigint, last_seq integer, updated_at float8, last_message_at float8,
      preview text, last_in_at float8, last_out_at float8, first_in_at float8,
      first_response_at float8, unread_count integer, notes_count integer, waiting_since float8,
      episode_at float8, episode_replied_at float8, reply_state text, status text)
  ), conv AS (
    UPDATE conversations c SET last_seq = u.last_seq, updated_at = u.updated_at,
      last_message_at = u.last_message_at, preview = u.preview, last_in_at = u.last_in_at,
      last_out_at = u.last_out_at, first_in_at = u.first_in_at, first_response_at = u.first_response_at,
      unread_count = u.unread_count, notes_count = u.notes_count, waiting_since = u.waiting_since,
      episode_at = u.episode_at, episode_replied_at = u.episode_replied_at, reply_state = u.reply_state,
      status = u.status
    FROM u WHERE c.id = u.id AND c.last_seq = u.prev_seq AND c.version = u.version
    RETURNING c.id, c.version, c.workspace_id, c.channel_id, c.team_id
  ), msg AS (
    INSERT INTO messages (workspace_id, conversation_id, seq, direction, type, body, sender, status, client_id,
                          file_id, reply_to_id, payload, external_id, sent_at, created_at)
    SELECT conv.workspace_id, conv.id, m.seq, m.direction, m.type, m.body, m.sender, m.status, m.client_id,
           m.file_id, m.reply_to_id, m.payload, m.external_id, to_timestamp(m.sent_at / 1000),
           to_timestamp(m.created_at / 1000)
    FROM json_to_recordset(msgs) AS m(
      c bigint, seq integer, direction text, type text, body text, sender jsonb, status text, client_id text,
      file_id bigint, reply_to_id bigint, payload jsonb, external_id text, sent_at float8,
      created_at float8)
    JOIN conv ON conv.id = m.c
    RETURNING conversation_id, seq, id
  ), fact AS (
    INSERT INTO report_facts (workspace_id, at, kind, conversation_id, channel_id, channel_type, team_id, user_id,
                              opened, first, since)
    SELECT conv.workspace_id, to_timestamp(f.at / 1000), f.kind, conv.id, conv.channel_id,
           (SELECT ch.type FROM channels ch WHERE ch.id = conv.channel_id), conv.team_id, f.user_id,
           f.opened, f.first, to_timestamp(f.since / 1000)
    FROM json_to_recordset(facts) AS f(
      c bigint, kind text, at float8, user_id integer, opened boolean, first boolean, since float8)
    JOIN conv ON conv.id = f.c
  )
  -- The messages' ids, then each written conversation's new version (the rest of its row is what
  -- the caller computed: the version guard says nothing else changed it).
  SELECT msg.conversation_id AS c, msg.seq, msg.id, NULL::bigint FROM msg
  UNION ALL
  SELECT conv.id, NULL, NULL, conv.version FROM conv;
END $$;

-- A message's workspace is its conversation's (the write takes it from the row), and deleting a
-- workspace deletes its conversations and they their messages: the second foreign key only cost
-- a check per inserted message (about 3 µs each in the storm) and a second cascade path.
ALTER TABLE messages DROP CONSTRAINT messages_workspace_id_fkey;
