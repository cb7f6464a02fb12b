/**
 * The people pages' texts (members, invitations, roles, teams) in English and Indonesian, keys
 * prefixed `pp.`. The permission descriptions say in one line what each permission allows; the
 * server names the permissions and their menus itself (GET /v1/permissions, in the reader's language).
 */
export const texts = {
  'pp.loading': { en: 'Loading…', id: 'Memuat…' },
  'pp.save': { en: 'Save changes', id: 'Simpan perubahan' },
  'pp.saved': { en: 'Saved.', id: 'Tersimpan.' },
  'pp.cancel': { en: 'Cancel', id: 'Batal' },
  'pp.edit': { en: 'Edit', id: 'Ubah' },
  'pp.close': { en: 'Close', id: 'Tutup' },
  'pp.none': { en: 'None', id: 'Tidak ada' },

  // Members
  'pp.members.title': { en: 'Members', id: 'Anggota' },
  'pp.members.quota': { en: '{used} of {limit} active members', id: '{used} dari {limit} anggota aktif' },
  'pp.members.quota_unlimited': { en: '{used} active members', id: '{used} anggota aktif' },
  'pp.members.list': { en: 'People in this workspace', id: 'Orang di ruang kerja ini' },
  'pp.col.member': { en: 'Member', id: 'Anggota' },
  'pp.col.role': { en: 'Role', id: 'Peran' },
  'pp.col.teams': { en: 'Teams', id: 'Tim' },
  'pp.col.status': { en: 'Status', id: 'Status' },
  'pp.col.actions': { en: 'Actions', id: 'Tindakan' },
  'pp.owner': { en: 'Owner', id: 'Pemilik' },
  'pp.me': { en: 'You', id: 'Anda' },
  'pp.status.active': { en: 'Active', id: 'Aktif' },
  'pp.status.disabled': { en: 'Disabled', id: 'Nonaktif' },
  'pp.reason.by_admin': { en: 'disabled by an administrator', id: 'dinonaktifkan oleh administrator' },
  'pp.reason.plan_limit': {
    en: 'over the plan’s member limit',
    id: 'melebihi batas anggota paket',
  },
  'pp.edit_member': { en: 'Edit {name}', id: 'Ubah {name}' },
  'pp.member.title': { en: 'Change {name}', id: 'Ubah {name}' },
  'pp.member.owner_note': {
    en: 'The Owner keeps their role, status and access; only teams and reply initial can change here.',
    id: 'Pemilik tetap dengan peran, status dan aksesnya; di sini hanya tim dan inisial balasan yang dapat diubah.',
  },
  'pp.member.self_note': {
    en: 'You cannot change your own role or disable yourself.',
    id: 'Anda tidak dapat mengubah peran sendiri atau menonaktifkan diri sendiri.',
  },
  'pp.member.disable': { en: 'Disable member', id: 'Nonaktifkan anggota' },
  'pp.member.disable_q': {
    en: 'Disable {name}? They lose access at once.',
    id: 'Nonaktifkan {name}? Aksesnya langsung dicabut.',
  },
  'pp.member.enable': { en: 'Enable member', id: 'Aktifkan anggota' },
  'pp.member.enable_q': {
    en: 'Enable {name}? They count towards the plan’s member limit again.',
    id: 'Aktifkan {name}? Ia kembali dihitung dalam batas anggota paket.',
  },
  'pp.member.removal': {
    en: 'Members are not deleted: disabling removes someone’s access and keeps their history. You can enable them again later.',
    id: 'Anggota tidak dihapus: menonaktifkan mencabut akses seseorang dan menyimpan riwayatnya. Anda dapat mengaktifkannya lagi nanti.',
  },
  'pp.member.disabled_done': { en: '{name} is disabled.', id: '{name} dinonaktifkan.' },
  'pp.member.enabled_done': { en: '{name} is active again.', id: '{name} aktif kembali.' },
  'pp.reply_initial': { en: 'Reply initial', id: 'Inisial balasan' },
  'pp.reply_initial_hint': {
    en: 'Shown under this member’s replies when the workspace signs replies (up to 20 characters).',
    id: 'Ditampilkan di bawah balasan anggota ini bila ruang kerja menandatangani balasan (maks. 20 karakter).',
  },

  // Access fields (invite and member)
  'pp.email': { en: 'E-mail address', id: 'Alamat email' },
  'pp.role': { en: 'Role', id: 'Peran' },
  'pp.teams': { en: 'Teams', id: 'Tim' },
  'pp.teams_hint': {
    en: 'A role without admin rights needs at least one team.',
    id: 'Peran tanpa hak admin memerlukan minimal satu tim.',
  },
  'pp.no_teams': {
    en: 'No teams yet. Create one under Teams first.',
    id: 'Belum ada tim. Buat dulu di halaman Tim.',
  },
  'pp.view_all': { en: 'Can view all data', id: 'Dapat melihat semua data' },
  'pp.view_all_hint': {
    en: 'Sees every conversation and ticket, not only those of their teams.',
    id: 'Melihat semua percakapan dan tiket, bukan hanya milik timnya.',
  },
  'pp.channel_access': { en: 'Channel access', id: 'Akses kanal' },
  'pp.channels_all': { en: 'All channels', id: 'Semua kanal' },
  'pp.channels_selected': { en: 'Only the channels chosen below', id: 'Hanya kanal yang dipilih di bawah' },
  'pp.channels': { en: 'Channels', id: 'Kanal' },
  'pp.no_channels': { en: 'No channels yet.', id: 'Belum ada kanal.' },

  // Invitations
  'pp.invite': { en: 'Invite someone', id: 'Undang seseorang' },
  'pp.invite.title': { en: 'Invite a member', id: 'Undang anggota' },
  'pp.invite.send': { en: 'Send invitation', id: 'Kirim undangan' },
  'pp.invite.sent': {
    en: 'Invitation sent to {email}. The link is valid for 7 days.',
    id: 'Undangan dikirim ke {email}. Tautannya berlaku 7 hari.',
  },
  'pp.inv.title': { en: 'Invitations', id: 'Undangan' },
  'pp.inv.empty': { en: 'No open invitations.', id: 'Tidak ada undangan terbuka.' },
  'pp.inv.col.email': { en: 'E-mail', id: 'Email' },
  'pp.inv.col.expires': { en: 'Link valid until', id: 'Tautan berlaku sampai' },
  'pp.inv.pending': { en: 'Pending', id: 'Menunggu' },
  'pp.inv.expired': { en: 'Expired', id: 'Kedaluwarsa' },
  'pp.inv.mail_failed': { en: 'e-mail not delivered', id: 'email tidak terkirim' },
  'pp.inv.mail_off': { en: 'no e-mail sent (mail is off)', id: 'email tidak dikirim (email nonaktif)' },
  'pp.inv.by': { en: 'invited by {name}', id: 'diundang oleh {name}' },
  'pp.inv.resend': { en: 'Resend', id: 'Kirim ulang' },
  'pp.inv.resend_label': { en: 'Resend the invitation to {email}', id: 'Kirim ulang undangan ke {email}' },
  'pp.inv.resent': {
    en: 'A new link went to {email}; the previous one no longer works.',
    id: 'Tautan baru dikirim ke {email}; tautan sebelumnya tidak berlaku lagi.',
  },
  'pp.inv.revoke': { en: 'Revoke', id: 'Batalkan' },
  'pp.inv.revoke_q': {
    en: 'Revoke the invitation to {email}? Its link stops working.',
    id: 'Batalkan undangan ke {email}? Tautannya tidak akan berfungsi lagi.',
  },
  'pp.inv.revoked': { en: 'The invitation to {email} is revoked.', id: 'Undangan ke {email} dibatalkan.' },

  // Roles
  'pp.roles.title': { en: 'Roles', id: 'Peran' },
  'pp.roles.list': { en: 'Roles in this workspace', id: 'Peran di ruang kerja ini' },
  'pp.roles.col.name': { en: 'Role', id: 'Peran' },
  'pp.roles.col.kind': { en: 'Kind', id: 'Jenis' },
  'pp.roles.col.usage': { en: 'Used by', id: 'Dipakai oleh' },
  'pp.roles.usage': {
    en: 'Members: {members} · Invitations: {invitations}',
    id: 'Anggota: {members} · Undangan: {invitations}',
  },
  'pp.roles.kind.owner': { en: 'Owner (fixed)', id: 'Pemilik (tetap)' },
  'pp.roles.kind.admin': { en: 'Admin: every permission', id: 'Admin: semua izin' },
  'pp.roles.kind.custom': { en: '{count} permissions', id: '{count} izin' },
  'pp.roles.new': { en: 'New role', id: 'Peran baru' },
  'pp.roles.name': { en: 'Role name', id: 'Nama peran' },
  'pp.roles.create': { en: 'Create role', id: 'Buat peran' },
  'pp.roles.back': { en: 'All roles', id: 'Semua peran' },
  'pp.role.readonly_owner': {
    en: 'The Owner’s role holds every permission and cannot be changed.',
    id: 'Peran Pemilik memegang semua izin dan tidak dapat diubah.',
  },
  'pp.role.readonly': {
    en: 'You can see this role but not change it.',
    id: 'Anda dapat melihat peran ini tetapi tidak dapat mengubahnya.',
  },
  'pp.role.is_admin': { en: 'Admin role (every permission)', id: 'Peran admin (semua izin)' },
  'pp.role.is_admin_hint': {
    en: 'Admins hold every permission, now and in future, and need no team.',
    id: 'Admin memegang semua izin, sekarang dan nanti, dan tidak memerlukan tim.',
  },
  'pp.role.admin_note': {
    en: 'This is an admin role: it holds every permission.',
    id: 'Ini peran admin: memegang semua izin.',
  },
  'pp.role.permissions': { en: 'What this role may do', id: 'Apa yang boleh dilakukan peran ini' },
  'pp.role.not_grantable': {
    en: 'You can only grant what you hold yourself',
    id: 'Anda hanya dapat memberikan izin yang Anda miliki',
  },
  'pp.role.duplicate': { en: 'Duplicate', id: 'Duplikat' },
  'pp.role.delete': { en: 'Delete role', id: 'Hapus peran' },
  'pp.role.delete_q': { en: 'Delete the role {name}?', id: 'Hapus peran {name}?' },
  'pp.role.in_use': {
    en: 'Members with this role: {members}; open invitations with it: {invitations}.',
    id: 'Anggota dengan peran ini: {members}; undangan terbuka dengan peran ini: {invitations}.',
  },

  // Teams
  'pp.teams.title': { en: 'Teams', id: 'Tim' },
  'pp.teams.frontline': { en: 'Frontline teams', id: 'Tim frontline' },
  'pp.teams.frontline_hint': {
    en: 'Answer customers in the inbox.',
    id: 'Menjawab pelanggan di kotak masuk.',
  },
  'pp.teams.backoffice': { en: 'Back-office teams', id: 'Tim back office' },
  'pp.teams.backoffice_hint': {
    en: 'Work on tickets handed over from the frontline.',
    id: 'Menangani tiket yang diteruskan dari frontline.',
  },
  'pp.teams.empty': { en: 'No teams of this kind yet.', id: 'Belum ada tim jenis ini.' },
  'pp.teams.col.name': { en: 'Team', id: 'Tim' },
  'pp.teams.col.members': { en: 'Members', id: 'Anggota' },
  'pp.teams.new': { en: 'New team', id: 'Tim baru' },
  'pp.teams.readonly': {
    en: 'Only people who manage members can change teams.',
    id: 'Hanya yang mengelola anggota yang dapat mengubah tim.',
  },
  'pp.team.name': { en: 'Team name', id: 'Nama tim' },
  'pp.team.type': { en: 'Type', id: 'Jenis' },
  'pp.team.type_fixed': {
    en: 'The type is fixed once the team exists.',
    id: 'Jenis tidak dapat diubah setelah tim dibuat.',
  },
  'pp.team.type.frontline': { en: 'Frontline', id: 'Frontline' },
  'pp.team.type.backoffice': { en: 'Back office', id: 'Back office' },
  'pp.team.description': { en: 'Description', id: 'Deskripsi' },
  'pp.team.members': { en: 'Members', id: 'Anggota' },
  'pp.team.create': { en: 'Create team', id: 'Buat tim' },
  'pp.team.back': { en: 'All teams', id: 'Semua tim' },
  'pp.team.delete': { en: 'Delete team', id: 'Hapus tim' },
  'pp.team.delete_q': { en: 'Delete the team {name}?', id: 'Hapus tim {name}?' },
  'pp.team.replacement': { en: 'Move its members and data to', id: 'Pindahkan anggota dan datanya ke' },
  'pp.team.replacement_why': {
    en: 'This team still has members or data. Choose another {type} team to take them over.',
    id: 'Tim ini masih memiliki anggota atau data. Pilih tim {type} lain untuk mengambil alih.',
  },
  'pp.team.replacement_none': {
    en: 'This team still has members or data, and there is no other {type} team to take them over. Create one first.',
    id: 'Tim ini masih memiliki anggota atau data, dan tidak ada tim {type} lain untuk mengambil alih. Buat dulu.',
  },
  'pp.team.delete_move': { en: 'Delete and move', id: 'Hapus dan pindahkan' },
  'pp.team.deleted': { en: 'The team {name} is deleted.', id: 'Tim {name} dihapus.' },

  // What each permission allows (one line).
  'pp.perm.dashboard.view': {
    en: 'Open the dashboard with getting-started steps, usage and recent activity.',
    id: 'Membuka dasbor berisi langkah awal, pemakaian dan aktivitas terbaru.',
  },
  'pp.perm.interactions.view': {
    en: 'Read conversations in the inbox (their teams’ or all, as set per member).',
    id: 'Membaca percakapan di kotak masuk (milik timnya atau semua, sesuai pengaturan anggota).',
  },
  'pp.perm.interactions.reply': {
    en: 'Send replies and notes in conversations.',
    id: 'Mengirim balasan dan catatan di percakapan.',
  },
  'pp.perm.interactions.assign': {
    en: 'Assign conversations to others and move them between teams.',
    id: 'Menugaskan percakapan ke orang lain dan memindahkannya antar tim.',
  },
  'pp.perm.templates.manage': {
    en: 'Create, change and delete reply templates.',
    id: 'Membuat, mengubah dan menghapus template balasan.',
  },
  'pp.perm.channels.manage': {
    en: 'Add, link and configure numbers, mailboxes, live chat and API channels.',
    id: 'Menambah, menautkan dan mengatur nomor, kotak surat, live chat dan kanal API.',
  },
  'pp.perm.settings.members': {
    en: 'Invite people, change members’ roles, teams and access, disable members, manage teams.',
    id: 'Mengundang orang, mengubah peran, tim dan akses anggota, menonaktifkan anggota, mengelola tim.',
  },
  'pp.perm.settings.roles': {
    en: 'Create and change roles, granting only what they hold themselves.',
    id: 'Membuat dan mengubah peran, hanya dengan izin yang dimilikinya sendiri.',
  },
  'pp.perm.settings.billing': {
    en: 'See the plan, usage and invoices, and change the plan.',
    id: 'Melihat paket, pemakaian dan faktur, serta mengganti paket.',
  },
  'pp.perm.settings.audit': {
    en: 'Read the audit log of who changed what.',
    id: 'Membaca log audit tentang siapa mengubah apa.',
  },
  'pp.perm.settings.workspace': {
    en: 'Change the workspace’s name, time zone, business hours and automatic replies.',
    id: 'Mengubah nama ruang kerja, zona waktu, jam kerja dan balasan otomatis.',
  },
  'pp.perm.settings.api': {
    en: 'Create and revoke API keys for your own systems.',
    id: 'Membuat dan mencabut kunci API untuk sistem Anda sendiri.',
  },
  'pp.perm.tickets.view': {
    en: 'Read tickets and their discussion.',
    id: 'Membaca tiket dan diskusinya.',
  },
  'pp.perm.tickets.create': {
    en: 'Open tickets, for example from a conversation.',
    id: 'Membuat tiket, misalnya dari percakapan.',
  },
  'pp.perm.tickets.manage': {
    en: 'Assign, change the status of and close tickets.',
    id: 'Menugaskan, mengubah status dan menutup tiket.',
  },
  'pp.perm.contacts.view': {
    en: 'See contacts and their history.',
    id: 'Melihat kontak dan riwayatnya.',
  },
  'pp.perm.contacts.manage': {
    en: 'Edit, merge and import contacts; manage labels, categories and custom fields.',
    id: 'Mengubah, menggabungkan dan mengimpor kontak; mengelola label, kategori dan kolom kustom.',
  },
  'pp.perm.kb.view': {
    en: 'Read knowledge-base articles.',
    id: 'Membaca artikel basis pengetahuan.',
  },
  'pp.perm.kb.manage': {
    en: 'Write, change and publish knowledge-base articles.',
    id: 'Menulis, mengubah dan menerbitkan artikel basis pengetahuan.',
  },
  'pp.perm.reports.view': {
    en: 'Open reports and KPIs.',
    id: 'Membuka laporan dan KPI.',
  },
  'pp.perm.ai.use': {
    en: 'Use the AI assistant for suggested replies and summaries.',
    id: 'Memakai asisten AI untuk saran balasan dan ringkasan.',
  },
  'pp.perm.leads.view': {
    en: 'See leads in the sales pipeline.',
    id: 'Melihat prospek di pipeline penjualan.',
  },
  'pp.perm.leads.manage': {
    en: 'Create leads and move them through the pipeline.',
    id: 'Membuat prospek dan memindahkannya di pipeline.',
  },
  'pp.perm.pipeline.manage': {
    en: 'Set up pipelines and their stages.',
    id: 'Menyiapkan pipeline dan tahapannya.',
  },
  'pp.perm.clients.manage': {
    en: 'Create and change client records.',
    id: 'Membuat dan mengubah data klien.',
  },
  'pp.perm.broadcasts.view': {
    en: 'See broadcasts and their results.',
    id: 'Melihat siaran dan hasilnya.',
  },
  'pp.perm.broadcasts.manage': {
    en: 'Create, schedule and send broadcasts.',
    id: 'Membuat, menjadwalkan dan mengirim siaran.',
  },
} as const

export type TextKey = keyof typeof texts
