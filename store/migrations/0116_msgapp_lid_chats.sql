-- A customer known by a LID alone (no phone) is answered at the chat their messages came from:
-- the latest LID chat of a conversation, found without reading the number's every message.
CREATE INDEX msgapp_messages_lid_idx ON msgapp_messages (conversation_id, at DESC) WHERE jid LIKE '%@lid';
