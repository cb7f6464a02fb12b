import { defineTexts } from '../kit'

/** The texts of Settings' index and frame (sections.ts names them by key). */
export const useSettingsTr = defineTexts({
  'set.title': { en: 'Settings', id: 'Pengaturan' },
  'set.back': { en: 'Settings', id: 'Pengaturan' },
  'set.none': {
    en: 'Your role gives you no settings to manage. Ask an administrator if you need one.',
    id: 'Peran Anda tidak memberi pengaturan untuk dikelola. Hubungi administrator bila perlu.',
  },
  'set.group.workspace': { en: 'Workspace and team', id: 'Ruang kerja dan tim' },
  'set.group.inbox': { en: 'Inbox', id: 'Kotak masuk' },
  'set.group.account': { en: 'Access and billing', id: 'Akses dan tagihan' },
  'set.workspace': { en: 'Workspace', id: 'Ruang kerja' },
  'set.workspace_hint': {
    en: 'Name, time zone, business hours, holidays, automatic replies',
    id: 'Nama, zona waktu, jam kerja, hari libur, balasan otomatis',
  },
  'set.members': { en: 'Members', id: 'Anggota' },
  'set.members_hint': {
    en: 'Invite people, roles and teams per member',
    id: 'Undang orang, peran dan tim per anggota',
  },
  'set.roles': { en: 'Roles', id: 'Peran' },
  'set.roles_hint': {
    en: 'What each role may see and do',
    id: 'Apa yang boleh dilihat dan dilakukan tiap peran',
  },
  'set.teams': { en: 'Teams', id: 'Tim' },
  'set.teams_hint': { en: 'Frontline and back-office teams', id: 'Tim frontline dan back office' },
  'set.channels': { en: 'Channels', id: 'Kanal' },
  'set.channels_hint': {
    en: 'Numbers, mailboxes, live chat and the API channel',
    id: 'Nomor, kotak surat, live chat dan kanal API',
  },
  'set.templates': { en: 'Reply templates', id: 'Template balasan' },
  'set.templates_hint': {
    en: 'Saved replies, inserted with /',
    id: 'Balasan tersimpan, disisipkan dengan /',
  },
  'set.categories': { en: 'Conversation categories', id: 'Kategori percakapan' },
  'set.categories_hint': { en: 'How conversations are sorted', id: 'Cara percakapan dikelompokkan' },
  'set.labels': { en: 'Labels and label rules', id: 'Label dan aturan label' },
  'set.labels_hint': {
    en: 'Contact labels and the rules that apply them',
    id: 'Label kontak dan aturan penerapannya',
  },
  'set.fields': { en: 'Custom fields', id: 'Kolom kustom' },
  'set.fields_hint': {
    en: 'Extra fields for contacts, conversations, tickets, leads and clients',
    id: 'Kolom tambahan untuk kontak, percakapan, tiket, prospek dan klien',
  },
  'set.api_keys': { en: 'API keys', id: 'Kunci API' },
  'set.api_keys_hint': { en: 'Keys for your own systems', id: 'Kunci untuk sistem Anda sendiri' },
  'set.audit': { en: 'Audit log', id: 'Log audit' },
  'set.audit_hint': { en: 'Who changed what, and when', id: 'Siapa mengubah apa, dan kapan' },
  'set.billing': { en: 'Billing and plan', id: 'Tagihan dan paket' },
  'set.billing_hint': { en: 'Plan, usage this month, invoices', id: 'Paket, pemakaian bulan ini, faktur' },
})

export type SettingsKey = Parameters<ReturnType<typeof useSettingsTr>>[0]
