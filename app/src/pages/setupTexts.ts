import { extend } from '../lib/i18n'

/** The first-run setup page's texts (pages/setup.tsx), English and Indonesian, keys `setup.`. */
const texts = {
  'setup.title': { en: 'Set up Kotak', id: 'Siapkan Kotak' },
  'setup.intro': {
    en: 'This server has no workspace yet. Create the first one: you become its owner and are signed in right away.',
    id: 'Server ini belum punya workspace. Buat yang pertama: Anda menjadi pemiliknya dan langsung masuk.',
  },
  'setup.workspace_name': { en: 'Workspace name', id: 'Nama workspace' },
  'setup.workspace_hint': {
    en: 'Your team or business, as your agents will see it (2 to 120 characters).',
    id: 'Tim atau usaha Anda, seperti yang akan dilihat para agen (2 sampai 120 karakter).',
  },
  'setup.name': { en: 'Your name', id: 'Nama Anda' },
  'setup.email': { en: 'Your e-mail address', id: 'Alamat e-mail Anda' },
  'setup.email_hint': {
    en: 'Your account is this address: sign-in and invitations use it.',
    id: 'Akun Anda adalah alamat ini: masuk dan undangan memakainya.',
  },
  'setup.language': { en: 'Language', id: 'Bahasa' },
  'setup.submit': { en: 'Create the workspace', id: 'Buat workspace' },
  'setup.submitting': { en: 'Creating…', id: 'Membuat…' },
  'setup.next_time': {
    en: 'Next time you sign in with a passkey (add one on your account page), an e-mailed link once this server can send mail, or your organisation’s identity provider (OIDC) when one is configured.',
    id: 'Lain kali Anda masuk dengan passkey (tambahkan di halaman akun Anda), tautan lewat e-mail setelah server ini bisa mengirim e-mail, atau penyedia identitas organisasi Anda (OIDC) bila sudah diatur.',
  },
  'setup.fix_fields': { en: 'Please correct the marked fields.', id: 'Perbaiki isian yang ditandai.' },
  'setup.invalid_title': { en: 'This setup link does not work', id: 'Tautan penyiapan ini tidak berlaku' },
  'setup.invalid_help': {
    en: 'Each start of the server prints a new setup link in its log, and the older ones stop working. Restart the server (npm start) and open the link from the newest “First run” line, or create the workspace with the operator CLI:',
    id: 'Setiap kali server dimulai, tautan penyiapan baru dicetak di lognya dan tautan lama tidak berlaku lagi. Mulai ulang server (npm start) lalu buka tautan dari baris “First run” yang terbaru, atau buat workspace dengan CLI operator:',
  },
  'setup.done_title': { en: 'This server is already set up', id: 'Server ini sudah disiapkan' },
  'setup.done_help': {
    en: 'This setup link has been used: the server has a workspace now. Sign in instead; to join a workspace, ask its owner for an invitation.',
    id: 'Tautan penyiapan ini sudah dipakai: server ini sudah punya workspace. Silakan masuk; untuk bergabung ke sebuah workspace, minta undangan kepada pemiliknya.',
  },
  'setup.to_signin': { en: 'Go to sign-in', id: 'Ke halaman masuk' },
} as const

export type SetupKey = keyof typeof texts

const byLocale = { en: {} as Record<string, string>, id: {} as Record<string, string> }
for (const [k, v] of Object.entries(texts)) {
  byLocale.en[k] = v.en
  byLocale.id[k] = v.id
}
extend(byLocale)
