import type pg from 'pg'

/**
 * The data of the `reports` scenario (bench/run.ts), seeded straight into PostgreSQL with
 * `generate_series` (the HTTP path would take hours for a year): 20 agents in 5 Frontline teams,
 * 4 channels (one of each type), `conversations` conversations spread over the last 12 months, each
 * with `perConversation` messages alternating customer / agent a few minutes apart, 90 % solved, a
 * category and a labelled contact for some; and the facts those messages and changes would have
 * written (store/reportFacts.ts), still to be rolled up. Business hours Monday to Friday
 * 08:00–17:00 in Asia/Jakarta, so every measure goes through the business-time arithmetic.
 */
export interface ReportsPlan {
  readonly conversations: number
  readonly perConversation: number
}

/** Words of the seeded messages, the most frequent first (see the messages' insert). */
export const VOCABULARY = (
  'halo kak terima kasih ya baik saya mohon tolong min sudah belum bisa pesanan paket hello thanks please ' +
  'order pengiriman kirim kapan sampai alamat resi kurir ongkir hari ini besok sore pagi siang malam ' +
  'barang produk harga stok ukuran warna size color retur tukar pengembalian refund rusak cacat salah ' +
  'garansi invoice pembayaran transfer bayar lunas tagihan diskon promo voucher kode delivery late ' +
  'package address payment price stock return exchange broken damaged wrong warranty discount shipping ' +
  'tracking number when tomorrow today morning sorry okay cepat lambat terlambat lama menunggu cek ' +
  'konfirmasi batal cancel komplain keluhan admin toko gudang jne sicepat pos gojek grab cod rekening ' +
  'bca mandiri bni bri ovo gopay dana shopeepay'
).split(' ')

export const seedReports = async (db: pg.Client, workspaceId: number, plan: ReportsPlan) => {
  const q = (text: string, values: unknown[] = []) =>
    db.query(text, values).catch((e: unknown) => {
      throw new Error(`${e instanceof Error ? e.message : String(e)} in: ${text.slice(0, 120)}`)
    })
  await q(`UPDATE workspaces SET settings = settings || $2::jsonb WHERE id = $1`, [
    workspaceId,
    JSON.stringify({
      response_target_minutes: 30,
      business_hours: {
        enabled: true,
        days: [1, 2, 3, 4, 5, 6, 7].map((day) => ({ day, open: day <= 5, from: '08:00', to: '17:00' })),
      },
    }),
  ])
  const channels = (
    await q(
      `INSERT INTO channels (workspace_id, type, name, status)
       SELECT $1::int, t, 'Bench ' || t, 'active' FROM unnest(ARRAY['msgapp', 'email', 'livechat', 'api']) t RETURNING id`,
      [workspaceId],
    )
  ).rows.map((r) => r.id as number)
  const teams = (
    await q(
      `INSERT INTO teams (workspace_id, type, name) SELECT $1::int, 'frontline', 'Team ' || g FROM generate_series(1, 5) g
       RETURNING id`,
      [workspaceId],
    )
  ).rows.map((r) => r.id as number)
  const agents = (
    await q(
      `INSERT INTO users (email, name) SELECT 'agent' || g || '-' || $1::text || '@bench.example', 'Agent ' || g
       FROM generate_series(1, 20) g RETURNING id`,
      [workspaceId],
    )
  ).rows.map((r) => r.id as number)
  await q(
    `INSERT INTO members (workspace_id, user_id, role_id)
     SELECT $1::int, u, (SELECT id FROM roles WHERE workspace_id = $1 AND name = 'Agent') FROM unnest($2::int[]) u`,
    [workspaceId, agents],
  )
  await q(
    `INSERT INTO team_members (team_id, user_id)
     SELECT ($1::int[])[1 + (i - 1) % 5], ($2::int[])[i] FROM generate_series(1, 20) i`,
    [teams, agents],
  )
  const cats = (
    await q(
      `INSERT INTO conversation_categories (workspace_id, name) SELECT $1::int, 'Category ' || g FROM generate_series(1, 8) g
       RETURNING id`,
      [workspaceId],
    )
  ).rows.map((r) => r.id as number)
  const labels = (
    await q(
      `INSERT INTO labels (workspace_id, name) SELECT $1::int, 'Label ' || g FROM generate_series(1, 5) g RETURNING id`,
      [workspaceId],
    )
  ).rows.map((r) => r.id as number)
  const contacts = Math.max(1, Math.floor(plan.conversations / 4))
  await q(
    `INSERT INTO contacts (workspace_id, name, phone)
     SELECT $1::int, 'Customer ' || g, '+6281' || lpad(g::text, 9, '0') FROM generate_series(1, $2::int) g`,
    [workspaceId, contacts],
  )
  await q(
    `INSERT INTO contact_labels (contact_id, label_id)
     SELECT c.id, ($2::int[])[1 + c.id % 5] FROM contacts c WHERE c.workspace_id = $1 AND c.id % 3 = 0`,
    [workspaceId, labels],
  )
  const minContact = (await q('SELECT min(id) AS m FROM contacts WHERE workspace_id = $1', [workspaceId]))
    .rows[0].m
  // Conversation i starts at a pseudo-random minute of the last 365 days; message j follows the one
  // before by 1 to 90 minutes; even j is the customer's, odd j the assignee's reply.
  await q(
    `CREATE TEMP TABLE seed_conv AS
     SELECT i, now() - make_interval(mins => ((i::bigint * 7919) % (365 * 24 * 60))::int) AS t0,
            ($2::int[])[1 + i % 4] AS channel_id, ($3::int[])[1 + i % 5] AS team_id,
            ($4::int[])[1 + (i % 5) + 5 * ((i / 5) % 4)] AS assignee_id,
            CASE WHEN i % 3 = 0 THEN NULL ELSE ($5::int[])[1 + i % 8] END AS category_id,
            $6::bigint + (i % $7::int) AS contact_id, i % 10 <> 0 AS solved
     FROM generate_series(1, $1::int) i`,
    [plan.conversations, channels, teams, agents, cats, minContact, contacts],
  )
  await q(
    `CREATE TEMP TABLE seed_msg AS
     SELECT c.i, j, c.t0 + make_interval(mins => (SELECT sum(1 + ((c.i * 31 + k * 17) % 90))::int
                                                 FROM generate_series(0, j) k)) AS at
     FROM seed_conv c, generate_series(0, $1::int - 1) j`,
    [plan.perConversation],
  )
  await q('CREATE INDEX ON seed_conv (i)')
  await q('CREATE INDEX ON seed_msg (i, j)')
  await q('ALTER TABLE seed_conv ADD COLUMN id bigint')
  await q('CREATE INDEX ON seed_conv (t0)')
  await q(
    `WITH ins AS (
       INSERT INTO conversations (workspace_id, channel_id, contact_id, team_id, assignee_id, category_id, status,
                                  reply_state, created_at, updated_at, first_in_at, first_response_at, last_seq,
                                  last_message_at, preview)
       SELECT $1::int, c.channel_id, c.contact_id, c.team_id, c.assignee_id, c.category_id,
              CASE WHEN c.solved THEN 'solved' ELSE 'open' END, 'replied', c.t0, c.t0, m0.at, m1.at, $2::int,
              ml.at, 'seeded'
       FROM seed_conv c JOIN seed_msg m0 ON m0.i = c.i AND m0.j = 0 JOIN seed_msg m1 ON m1.i = c.i AND m1.j = 1
       JOIN seed_msg ml ON ml.i = c.i AND ml.j = $2::int - 1
       RETURNING id, created_at)
     UPDATE seed_conv c SET id = ins.id FROM ins WHERE ins.created_at = c.t0`,
    [workspaceId, plan.perConversation],
  )
  // Bodies of 4 to 12 words of a help desk's vocabulary (Indonesian and English), earlier words
  // more frequent (the k-th is drawn with a probability ~ 1/√k: a greeting is in most messages,
  // "retur" in a few percent), and in the first message an order number of its own (ORD…, one
  // conversation's), in one message of ten a product code (SKU…, each in ~20 messages of a
  // million): what the inbox's message search (`q`) meets. Seeded, so runs compare.
  await q('SELECT setseed(0.47)')
  await q(
    `INSERT INTO messages (workspace_id, conversation_id, seq, direction, type, body, sender, created_at, sent_at)
     SELECT $1::int, c.id, m.j + 1, CASE WHEN m.j % 2 = 0 THEN 'in' ELSE 'out' END, 'text',
            (SELECT string_agg(($2::text[])[1 + floor(power(random(), 2) * cardinality($2::text[]))::int], ' ')
             FROM generate_series(1, 4 + (m.i * 7 + m.j) % 9))
              || CASE WHEN m.j = 0 THEN ' ORD' || lpad(m.i::text, 7, '0') ELSE '' END
              || CASE WHEN random() < 0.1 THEN ' SKU' || (1000 + floor(random() * 5000))::int ELSE '' END,
            CASE WHEN m.j % 2 = 0 THEN '{}'::jsonb ELSE jsonb_build_object('user_id', c.assignee_id) END,
            m.at, m.at
     FROM seed_msg m JOIN seed_conv c ON c.i = m.i`,
    [workspaceId, VOCABULARY],
  )
  // The facts the write path would have recorded (store/reportFacts.ts): the conversation given
  // to its team and assignee right after the first message, each message, each solve.
  await q(
    `INSERT INTO report_facts (workspace_id, at, kind, conversation_id, channel_id, channel_type, team_id, user_id,
                               opened, first, since)
     SELECT $1::int, m.at, CASE WHEN m.j % 2 = 0 THEN 'in' ELSE 'out' END, c.id, c.channel_id, ch.type, c.team_id,
            CASE WHEN m.j % 2 = 0 THEN NULL ELSE c.assignee_id END, m.j = 0, m.j = 1,
            CASE WHEN m.j % 2 = 1 THEN p.at END
     FROM seed_msg m JOIN seed_conv c ON c.i = m.i JOIN channels ch ON ch.id = c.channel_id
     LEFT JOIN seed_msg p ON p.i = m.i AND p.j = m.j - 1
     ORDER BY m.at`,
    [workspaceId],
  )
  await q(
    `INSERT INTO report_facts (workspace_id, at, kind, conversation_id, channel_id, channel_type, team_id, user_id, since)
     SELECT $1::int, f.at + interval '1 minute', 'assigned', c.id, c.channel_id, ch.type, c.team_id, u, NULL
     FROM seed_conv c JOIN seed_msg f ON f.i = c.i AND f.j = 0 JOIN channels ch ON ch.id = c.channel_id,
          LATERAL (VALUES (NULL::int), (c.assignee_id)) AS x (u)`,
    [workspaceId],
  )
  await q(
    `INSERT INTO report_facts (workspace_id, at, kind, conversation_id, channel_id, channel_type, team_id, user_id, since)
     SELECT $1::int, l.at + interval '5 minutes', 'resolved', c.id, c.channel_id, ch.type, c.team_id, c.assignee_id, f.at
     FROM seed_conv c JOIN seed_msg f ON f.i = c.i AND f.j = 0
     JOIN seed_msg l ON l.i = c.i AND l.j = $2::int - 1 JOIN channels ch ON ch.id = c.channel_id
     WHERE c.solved`,
    [workspaceId, plan.perConversation],
  )
  await q('DROP TABLE seed_msg; DROP TABLE seed_conv')
  // As autovacuum leaves tables after a bulk insert: statistics, GIN pending lists folded in.
  await q('VACUUM ANALYZE')
  const n = (await q('SELECT count(*)::int AS n FROM messages WHERE workspace_id = $1', [workspaceId]))
    .rows[0].n
  const facts = (
    await q('SELECT count(*)::int AS n FROM report_facts WHERE workspace_id = $1', [workspaceId])
  ).rows[0].n
  return { messages: n as number, facts: facts as number, agents, teams, channels }
}
