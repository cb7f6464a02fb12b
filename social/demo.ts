import type { ImportRecord } from './import'

/**
 * A realistic demo data set for the import: three Indonesian shop accounts, months of comments
 * and mentions in Indonesian, replies, solved/closed/reopened conversations, tickets with a
 * discussion, and notes. Deterministic for a seed and an end time; events after `now` are left
 * out, so the last days keep a backlog. Ids are `demo<seed>-…`: importing again is idempotent.
 */

export interface DemoOptions {
  readonly seed: number
  readonly days: number
  readonly now: Date
}

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR
const WIB = 7 * HOUR

/** mulberry32: small, fast, good enough for demo data. */
const prng = (seed: number) => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

interface Account {
  readonly key: string
  readonly username: string
  readonly posts: readonly string[]
  readonly scenarios: readonly Scenario[]
  /** Posts of others that mention the account, with the category they fall in. */
  readonly mentions: readonly (readonly [string, string])[]
}

interface Scenario {
  readonly category: string
  readonly tags: readonly string[]
  readonly weight: number
  readonly openers: readonly string[]
  readonly followUps: readonly string[]
  readonly replies: readonly string[]
  readonly ticket: number
  readonly subject: string
  readonly priority: readonly ('low' | 'normal' | 'high' | 'urgent')[]
}

const shopScenarios: readonly Scenario[] = [
  {
    category: 'Pertanyaan Produk',
    tags: ['stok', 'ukuran'],
    weight: 5,
    openers: [
      'Kak, yang warna hitam ukuran M masih ready?',
      'Ini bahannya apa ya kak? Adem gak dipakai seharian?',
      'Min, ada ukuran XL? Lingkar dada 110 cm muat gak?',
      'Kak, yang motif batik ini restock kapan?',
      'Ukuran S itu panjangnya berapa cm ya kak?',
    ],
    followUps: [
      'Oke kak, makasih infonya 🙏',
      'Kalau beli 2 ada diskon gak kak?',
      'Siap, langsung checkout ya',
    ],
    replies: [
      'Halo Kak! Ukuran M warna hitam masih ready ya 😊 Silakan checkout lewat link di bio.',
      'Bahannya katun combed 30s Kak, adem dan menyerap keringat 👍',
      'Ukuran XL masih ada Kak, lingkar dada 112 cm jadi masih muat ya.',
      'Untuk detail ukuran bisa cek size chart di slide terakhir ya Kak 🙏',
    ],
    ticket: 0.02,
    subject: 'Permintaan restock',
    priority: ['low', 'normal'],
  },
  {
    category: 'Pengiriman',
    tags: ['ongkir', 'resi'],
    weight: 3,
    openers: [
      'Ongkir ke Surabaya berapa min?',
      'Pesanan saya belum sampai, sudah 5 hari. Resinya JP1234567890',
      'Bisa kirim ke Makassar gak kak? Pakai ekspedisi apa?',
      'Kak, paket saya statusnya tertahan di gudang terus 😢',
    ],
    followUps: [
      'Sudah saya DM ya kak nomor pesanannya',
      'Sampai sekarang belum ada update kak',
      'Oke ditunggu kak',
    ],
    replies: [
      'Mohon maaf atas ketidaknyamanannya, Kak. Boleh DM nomor pesanannya? Kami bantu cek ke ekspedisi 🙏',
      'Ongkir ke Surabaya mulai Rp12.000 ya Kak, estimasi 2–3 hari.',
      'Bisa Kak, kami kirim pakai JNE dan SiCepat ke seluruh Indonesia 📦',
    ],
    ticket: 0.3,
    subject: 'Paket belum diterima',
    priority: ['normal', 'high'],
  },
  {
    category: 'Komplain',
    tags: ['retur'],
    weight: 1.5,
    openers: [
      'Barang yang datang beda warna sama yang dipesan 😡',
      'Kok jahitannya lepas ya kak, baru sekali pakai',
      'Produknya cacat, mau retur gimana caranya?',
      'Pesanan kurang satu item kak, tolong dicek',
    ],
    followUps: [
      'Sudah saya kirim fotonya lewat DM',
      'Tolong segera diproses ya kak',
      'Kecewa banget padahal sudah langganan',
    ],
    replies: [
      'Mohon maaf sekali, Kak 🙏 Boleh kirim foto produk dan nomor pesanan via DM? Kami proses retur segera.',
      'Maaf atas kekurangannya Kak, tim kami sudah cek dan akan kirim ulang item yang kurang.',
    ],
    ticket: 0.7,
    subject: 'Retur produk',
    priority: ['high', 'urgent'],
  },
  {
    category: 'Pembayaran',
    tags: ['pembayaran'],
    weight: 1,
    openers: [
      'Bisa bayar pakai COD gak kak?',
      'Sudah transfer tapi status masih belum dibayar',
      'Bisa cicilan pakai kartu kredit?',
    ],
    followUps: ['Sudah saya kirim bukti transfernya', 'Oke makasih kak'],
    replies: [
      'Bisa COD untuk wilayah Jabodetabek ya Kak 😊',
      'Pembayaran Kakak sudah kami terima, pesanan diproses hari ini 🙏',
    ],
    ticket: 0.15,
    subject: 'Pembayaran belum terverifikasi',
    priority: ['normal', 'high'],
  },
  {
    category: 'Promo',
    tags: ['diskon', 'voucher'],
    weight: 1.5,
    openers: [
      'Promo gajian masih berlaku kak?',
      'Kode vouchernya gak bisa dipakai min',
      'Ada flash sale lagi kapan kak?',
    ],
    followUps: ['Sip, ditunggu ya', 'Makasih kak infonya'],
    replies: [
      'Promo masih berlaku sampai tengah malam ini ya Kak ✨',
      'Kode voucher berlaku minimal belanja Rp150.000 ya Kak, coba dicek lagi 🙏',
    ],
    ticket: 0.05,
    subject: 'Voucher tidak bisa dipakai',
    priority: ['low', 'normal'],
  },
  {
    category: 'Apresiasi',
    tags: [],
    weight: 1.5,
    openers: [
      'Barangnya bagus banget, makasih kak! 😍',
      'Udah repeat order ketiga kali, mantap!',
      'Packing rapi, pengiriman cepat. Recommended seller 👍',
    ],
    followUps: ['Sukses terus ya kak'],
    replies: ['Terima kasih banyak, Kak! Ditunggu order berikutnya 🥰', 'Senang sekali Kakak suka 🙏✨'],
    ticket: 0,
    subject: 'Apresiasi',
    priority: ['low'],
  },
]

const accounts: readonly Account[] = [
  {
    key: '1',
    username: 'tokomaju.id',
    posts: [
      'Koleksi kemeja batik terbaru sudah rilis! Tersedia ukuran S–XXL 🔥',
      'Flash sale gajian diskon 30% untuk semua kaos polos ✨',
      'Restock hoodie oversize warna sage dan hitam 🖤',
    ],
    scenarios: shopScenarios,
    mentions: [
      ['Baru unboxing dari @tokomaju.id, packing rapi banget! 📦', 'Apresiasi'],
      ['OOTD hari ini pakai kemeja batik @tokomaju.id 😎', 'Apresiasi'],
      ['Kecewa sama @tokomaju.id, paket sudah seminggu belum sampai', 'Pengiriman'],
    ],
  },
  {
    key: '2',
    username: 'kopimaju.official',
    posts: [
      'Menu baru: es kopi susu gula aren ukuran 1 liter ☕',
      'Promo beli 2 gratis 1 setiap Jumat 🎉',
      'Biji kopi Gayo roasting baru tiba, cocok untuk V60',
    ],
    scenarios: shopScenarios,
    mentions: [
      ['Ngopi sore pakai kopi susu gula aren dari @kopimaju.official ☕', 'Apresiasi'],
      ['Rekomendasi kopi literan enak: @kopimaju.official', 'Apresiasi'],
      ['Pesanan di @kopimaju.official datang dalam keadaan tumpah 😢', 'Komplain'],
    ],
  },
  {
    key: '3',
    username: 'maju.beauty',
    posts: [
      'Serum niacinamide 10% sekarang ada ukuran travel 💧',
      'Tips skincare pagi untuk kulit berminyak 🌞',
      'Giveaway akhir bulan! Tag 3 temanmu 🎁',
    ],
    scenarios: shopScenarios,
    mentions: [
      ['Cocok banget pakai serum dari @maju.beauty, jerawat berkurang ✨', 'Apresiasi'],
      ['Review jujur sunscreen @maju.beauty setelah 2 minggu', 'Apresiasi'],
      ['Kok serum @maju.beauty yang aku terima segelnya rusak ya', 'Komplain'],
    ],
  },
]

const firstNames = [
  'budi',
  'siti',
  'agus',
  'dewi',
  'rina',
  'andi',
  'putri',
  'fajar',
  'nur',
  'yuni',
  'eko',
  'wulan',
  'dian',
  'rizky',
  'ayu',
  'bayu',
  'indah',
  'hendra',
  'maya',
  'teguh',
  'lina',
  'yoga',
  'citra',
  'gilang',
]
const suffixes = [
  '_s',
  '.pratama',
  '88',
  'wijaya',
  '.id',
  '_99',
  'santoso',
  'lestari',
  '.kurnia',
  '_official',
]
const agents = ['Sari', 'Dimas', 'Ayu', 'Rizky']
const labelsPool = ['pelanggan-baru', 'reseller', 'prioritas', 'viral']
const notesPool = [
  'Pelanggan reseller, berikan harga khusus.',
  'Sudah dicek ke gudang, stok tinggal sedikit.',
  'Pelanggan minta dihubungi lewat WhatsApp.',
  'Eskalasi ke tim gudang untuk pengecekan.',
]
const discussionPool = [
  'Menunggu foto produk dan nomor pesanan dari pelanggan.',
  'Sudah dicek ke ekspedisi, paket tertahan di gudang transit.',
  'Pelanggan setuju barang dikirim ulang.',
  'Resi pengiriman ulang: JP9876543210.',
  'Pelanggan konfirmasi barang sudah diterima. Tiket bisa ditutup.',
]

const shortcode = (rand: () => number) => {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'
  let s = ''
  for (let i = 0; i < 11; i++) s += chars[Math.floor(rand() * chars.length)]
  return s
}

const isoOf = (ms: number) => `${new Date(ms + WIB).toISOString().slice(0, 19)}+07:00`

/** The platform account id of a demo account: numeric like Instagram's, distinct per seed. */
export const demoAccountId = (seed: number, key: string) => `17841${String(seed).padStart(6, '0')}0000${key}`

export const generate = (opts: DemoOptions): ImportRecord[] => {
  const rand = prng(opts.seed)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
  const between = (lo: number, hi: number) => lo + rand() * (hi - lo)
  const chance = (p: number) => rand() < p
  const now = opts.now.getTime()
  const p = `demo${opts.seed}`
  let seq = 0
  const id = (kind: string) => `${p}-${kind}${++seq}`

  const channels: ImportRecord[] = []
  const conversations: ImportRecord[] = []
  const tickets: ImportRecord[] = []
  const messages: ImportRecord[] = []
  const statuses: ImportRecord[] = []
  const notes: ImportRecord[] = []
  const comments: ImportRecord[] = []

  // Agents answer from 08:00 to 21:00 WIB; later questions wait for the morning.
  const workingTime = (ms: number) => {
    const local = new Date(ms + WIB)
    const h = local.getUTCHours()
    if (h >= 8 && h < 21) return ms
    const next = new Date(Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate(), 8, 0, 0))
    const morning = next.getTime() - WIB + (h >= 21 ? DAY : 0)
    return morning + between(5, 90) * MINUTE
  }

  const startDay = Math.floor((now + WIB) / DAY) - (opts.days - 1)
  for (const account of accounts) {
    const accountId = demoAccountId(opts.seed, account.key)
    channels.push({ kind: 'channel', id: accountId, username: account.username })
    const posts = account.posts.map((caption) => ({
      caption,
      permalink: `https://www.instagram.com/p/${shortcode(rand)}/`,
    }))
    for (let d = 0; d < opts.days; d++) {
      const dayStart = (startDay + d) * DAY - WIB
      const dow = new Date(dayStart + WIB).getUTCDay()
      const date = new Date(dayStart + WIB).getUTCDate()
      const busy = (dow === 0 || dow === 6 ? 1.3 : 1) * (date === 25 || date === 1 ? 2.2 : 1)
      const n = Math.round(between(2, 7) * busy)
      for (let i = 0; i < n; i++) {
        // Most traffic in the evening (WIB).
        const hour = chance(0.6) ? between(17, 23) : between(6, 17)
        const t0 = Math.floor(dayStart + hour * HOUR + between(0, 59) * MINUTE)
        const contact = `${pick(firstNames)}${pick(suffixes)}`
        const mention = chance(0.22) ? pick(account.mentions) : null
        const scenario = (() => {
          if (mention)
            return account.scenarios.find((s) => s.category === mention[1]) ?? account.scenarios[0]!
          const total = account.scenarios.reduce((s, x) => s + x.weight, 0)
          let r = rand() * total
          for (const s of account.scenarios) {
            r -= s.weight
            if (r <= 0) return s
          }
          return account.scenarios[0]!
        })()
        const post = pick(posts)
        const conversationId = id('c')
        const opener = mention ? mention[0] : pick(scenario.openers)
        const contextLink = `https://www.instagram.com/p/${shortcode(rand)}/`
        conversations.push({
          kind: 'conversation',
          id: conversationId,
          channel: accountId,
          type: mention ? 'mention' : 'reply',
          contact,
          created_at: isoOf(t0),
          category: scenario.category,
          labels: chance(0.25) ? [pick(labelsPool)] : [],
          tags: [...scenario.tags],
          assignee: chance(0.85) ? pick(agents) : null,
          context: mention
            ? { text: opener, username: contact, permalink: contextLink }
            : { text: post.caption, username: account.username, permalink: post.permalink },
        })
        const events: ImportRecord[] = []
        const incoming = (at: number, text: string) => {
          const image = chance(0.08)
          events.push({
            kind: 'message',
            id: id('m'),
            conversation: conversationId,
            direction: 'in',
            author: contact,
            text,
            media_type: image ? 'image' : 'text',
            attachments: image
              ? [{ type: 'image', url: `https://cdn.example.com/ig/${shortcode(rand)}.jpg` }]
              : [],
            status: 'received',
            permalink: `${mention ? contextLink : post.permalink}c/${Math.floor(rand() * 1e12)}/`,
            posted_at: isoOf(at),
          })
        }
        const outgoing = (at: number, status: 'published' | 'failed' = 'published') => {
          const agent = pick(agents)
          events.push({
            kind: 'message',
            id: id('m'),
            conversation: conversationId,
            direction: 'out',
            author: `${account.username} (${agent})`,
            text: pick(scenario.replies),
            media_type: 'text',
            attachments: [],
            status,
            permalink: status === 'published' ? `${post.permalink}c/${Math.floor(rand() * 1e12)}/` : null,
            posted_at: isoOf(at),
          })
        }
        const status = (at: number, to: 'solved' | 'closed' | 'open') =>
          events.push({
            kind: 'status_change',
            id: id('s'),
            conversation: conversationId,
            status: to,
            author: pick(agents),
            changed_at: isoOf(at),
          })

        incoming(t0, opener)
        let t = t0
        const replied = chance(0.86)
        if (replied) {
          t = workingTime(t + between(2, 180) * MINUTE)
          if (chance(0.03)) {
            outgoing(t, 'failed')
            t += between(1, 10) * MINUTE
          }
          outgoing(t)
          if (chance(0.4)) {
            t += between(5, 240) * MINUTE
            incoming(t, pick(scenario.followUps))
            t = workingTime(t + between(2, 120) * MINUTE)
            outgoing(t)
          }
          if (chance(0.72)) {
            t += between(10, 600) * MINUTE
            status(t, 'solved')
            if (chance(0.08)) {
              t += between(1, 3) * DAY
              incoming(t, pick(scenario.followUps))
              t = workingTime(t + between(5, 120) * MINUTE)
              outgoing(t)
              t += between(30, 300) * MINUTE
              status(t, 'solved')
            }
            if (chance(0.6)) status(t + 3 * DAY, 'closed')
          }
        } else if (chance(0.3)) {
          status(t + between(1, 48) * HOUR, 'closed')
        }

        if (chance(scenario.ticket)) {
          const ticketId = id('t')
          const created = workingTime(t0 + between(10, 240) * MINUTE)
          const resolveAfter = between(2, 96) * HOUR
          const resolvedAt = created + resolveAfter
          const closedAt = resolvedAt + 2 * DAY
          const state =
            closedAt <= now
              ? ('closed' as const)
              : resolvedAt <= now
                ? ('resolved' as const)
                : pick(['open', 'in_progress', 'waiting'] as const)
          const agent = pick(agents)
          tickets.push({
            kind: 'ticket',
            id: ticketId,
            conversation: conversationId,
            subject: `${scenario.subject} – @${contact}`,
            description: `Dari komentar @${contact}: "${opener}"`,
            status: state,
            priority: pick(scenario.priority),
            assignees: chance(0.3) ? [agent, pick(agents.filter((a) => a !== agent))] : [agent],
            due_at: isoOf(created + 3 * DAY),
            created_at: isoOf(created),
            resolved_at: state === 'resolved' || state === 'closed' ? isoOf(resolvedAt) : null,
            closed_at: state === 'closed' ? isoOf(closedAt) : null,
          })
          if (created <= now) {
            notes.push({
              kind: 'note',
              id: id('n'),
              conversation: conversationId,
              body: `Tiket dibuat untuk ditindaklanjuti oleh ${agent}.`,
              author: agent,
              source: 'ticket',
              ticket: ticketId,
              created_at: isoOf(created),
            })
          }
          // A short discussion that moves forward: entries of the pool in order, in working hours.
          let at = created
          let from = Math.floor(rand() * 2)
          const k = 1 + Math.floor(rand() * 3)
          for (let j = 0; j < k && from < discussionPool.length; j++) {
            at = workingTime(at + between(30, 600) * MINUTE)
            comments.push({
              kind: 'ticket_comment',
              id: id('d'),
              ticket: ticketId,
              author: pick(agents),
              body: discussionPool[from]!,
              created_at: isoOf(at),
            })
            from += 1 + Math.floor(rand() * 2)
          }
        }
        if (chance(0.15)) {
          notes.push({
            kind: 'note',
            id: id('n'),
            conversation: conversationId,
            body: pick(notesPool),
            author: pick(agents),
            source: 'manual',
            ticket: null,
            created_at: isoOf(t0 + between(5, 120) * MINUTE),
          })
        }
        for (const e of events) (e.kind === 'message' ? messages : statuses).push(e)
      }
    }
  }
  const past = (r: ImportRecord) => {
    const at =
      r.kind === 'message'
        ? r.posted_at
        : r.kind === 'status_change'
          ? r.changed_at
          : r.kind === 'channel'
            ? null
            : r.created_at
    return at === null || Date.parse(at) <= now
  }
  const live = [...conversations, ...tickets].filter(past).map((r) => r.id)
  const kept = new Set(live)
  return [
    ...channels,
    ...conversations.filter(past),
    ...tickets.filter(past),
    ...messages.filter((r) => past(r) && r.kind === 'message' && kept.has(r.conversation)),
    ...statuses.filter(past),
    ...notes.filter(past),
    ...comments.filter((r) => past(r) && r.kind === 'ticket_comment' && kept.has(r.ticket)),
  ]
}

export const toNdjson = (records: readonly ImportRecord[]): string =>
  `${records.map((r) => JSON.stringify(r)).join('\n')}\n`
