import { defineTexts } from '../kit'

/**
 * The workspace pages' and the dashboard's texts in English and Indonesian (keys `ws.`, `db.`),
 * registered when the area's chunk loads.
 */
export const useTr = defineTexts({
  // Workspace settings
  'ws.title': { en: 'Workspace', id: 'Ruang kerja' },
  'ws.general': { en: 'General', id: 'Umum' },
  'ws.name': { en: 'Workspace name', id: 'Nama ruang kerja' },
  'ws.timezone': { en: 'Time zone', id: 'Zona waktu' },
  'ws.timezone_hint': {
    en: 'Decides the days of reports, quotas and business hours.',
    id: 'Menentukan hari pada laporan, kuota, dan jam kerja.',
  },
  'ws.target': { en: 'Reply target', id: 'Target balasan' },
  'ws.target_hint': {
    en: 'How soon a customer should get an answer; the inbox flags conversations that wait longer.',
    id: 'Seberapa cepat pelanggan harus dibalas; kotak masuk menandai percakapan yang menunggu lebih lama.',
  },
  'ws.warn': { en: 'Warn at', id: 'Peringatkan pada' },
  'ws.warn_hint': {
    en: 'Share of the reply target after which a waiting conversation is marked as nearly late.',
    id: 'Bagian dari target balasan setelah itu percakapan yang menunggu ditandai hampir terlambat.',
  },
  'ws.warn_value': { en: '{n}% of the target', id: '{n}% dari target' },
  'ws.minutes': { en: '{n} minutes', id: '{n} menit' },
  'ws.hours_n': { en: '{n} hours', id: '{n} jam' },
  'ws.hour_1': { en: '1 hour', id: '1 jam' },
  'ws.day_1': { en: '1 day', id: '1 hari' },
  'ws.changed_elsewhere': {
    en: 'Someone else changed these settings; the page shows their version.',
    id: 'Orang lain mengubah pengaturan ini; halaman menampilkan versi mereka.',
  },
  'ws.hours': { en: 'Business hours', id: 'Jam kerja' },
  'ws.hours_enabled': { en: 'Use business hours', id: 'Gunakan jam kerja' },
  'ws.hours_hint': {
    en: 'When off, the workspace counts as open around the clock. Channels may set their own hours.',
    id: 'Jika mati, ruang kerja dianggap buka sepanjang waktu. Setiap kanal boleh punya jamnya sendiri.',
  },
  'ws.open_now': { en: 'Open now', id: 'Sedang buka' },
  'ws.closed_now': { en: 'Closed now', id: 'Sedang tutup' },
  'ws.day': { en: 'Day', id: 'Hari' },
  'ws.open': { en: 'Open', id: 'Buka' },
  'ws.from': { en: 'Opens', id: 'Buka pukul' },
  'ws.to': { en: 'Closes', id: 'Tutup pukul' },
  'ws.open_on': { en: 'Open on {day}', id: 'Buka pada hari {day}' },
  'ws.from_on': { en: 'Opens on {day}', id: 'Jam buka hari {day}' },
  'ws.to_on': { en: 'Closes on {day}', id: 'Jam tutup hari {day}' },
  'ws.closed': { en: 'Closed', id: 'Tutup' },
  'ws.d1': { en: 'Monday', id: 'Senin' },
  'ws.d2': { en: 'Tuesday', id: 'Selasa' },
  'ws.d3': { en: 'Wednesday', id: 'Rabu' },
  'ws.d4': { en: 'Thursday', id: 'Kamis' },
  'ws.d5': { en: 'Friday', id: 'Jumat' },
  'ws.d6': { en: 'Saturday', id: 'Sabtu' },
  'ws.d7': { en: 'Sunday', id: 'Minggu' },
  'ws.save_hours': { en: 'Save business hours', id: 'Simpan jam kerja' },
  'ws.your_workspaces': { en: 'Your workspaces', id: 'Ruang kerja Anda' },
  'ws.your_workspaces_hint': {
    en: 'Switch, create or leave a workspace, and answer ownership requests.',
    id: 'Pindah, buat, atau keluar dari ruang kerja, dan jawab permintaan kepemilikan.',
  },

  // Ownership transfer (owner)
  'ws.owner': { en: 'Ownership', id: 'Kepemilikan' },
  'ws.owner_intro': {
    en: 'Hand the workspace to another member. They become its Owner once they accept.',
    id: 'Serahkan ruang kerja ke anggota lain. Mereka menjadi Pemilik setelah menerimanya.',
  },
  'ws.recipient': { en: 'New owner', id: 'Pemilik baru' },
  'ws.pick': { en: 'Choose a member', id: 'Pilih anggota' },
  'ws.no_recipients': {
    en: 'No other member can take over yet: invite someone first.',
    id: 'Belum ada anggota lain yang bisa mengambil alih: undang seseorang dulu.',
  },
  'ws.not_eligible': { en: '{name} (cannot take over: {reason})', id: '{name} (tidak bisa: {reason})' },
  'ws.reason.not_member': { en: 'not an active member', id: 'bukan anggota aktif' },
  'ws.reason.owns_workspace': {
    en: 'already owns as many workspaces as allowed',
    id: 'sudah memiliki ruang kerja sebanyak batasnya',
  },
  'ws.confirm_name': {
    en: 'Type the workspace name to confirm',
    id: 'Ketik nama ruang kerja untuk konfirmasi',
  },
  'ws.confirm_hint': { en: 'The name is “{name}”.', id: 'Namanya “{name}”.' },
  'ws.stay': { en: 'I stay in the workspace as a member', id: 'Saya tetap di ruang kerja sebagai anggota' },
  'ws.stay_hint': {
    en: 'Otherwise you lose access once the new owner accepts.',
    id: 'Jika tidak, akses Anda berakhir setelah pemilik baru menerima.',
  },
  'ws.stay_role': { en: 'My role after the transfer', id: 'Peran saya setelah pengalihan' },
  'ws.stay_teams': { en: 'My teams after the transfer', id: 'Tim saya setelah pengalihan' },
  'ws.becomes_free': {
    en: 'This workspace is on a Custom contract, which belongs to whoever signed it: after the transfer it moves to the Free plan.',
    id: 'Ruang kerja ini memakai kontrak Custom milik penandatangannya: setelah pengalihan, paketnya menjadi Free.',
  },
  'ws.ask': { en: 'Ask to take over', id: 'Minta untuk mengambil alih' },
  'ws.pending': {
    en: 'Waiting for {name} ({email}) to answer, asked {at}.',
    id: 'Menunggu jawaban {name} ({email}), diminta {at}.',
  },
  'ws.pending_stay': {
    en: 'You stay as {role}.',
    id: 'Anda tetap sebagai {role}.',
  },
  'ws.pending_leave': { en: 'You leave once they accept.', id: 'Anda keluar setelah mereka menerima.' },
  'ws.cancel_transfer': { en: 'Cancel the request', id: 'Batalkan permintaan' },
  'ws.cancel_question': { en: 'Cancel the ownership request?', id: 'Batalkan permintaan kepemilikan?' },
  'ws.asked': { en: 'Request sent to {name}.', id: 'Permintaan dikirim ke {name}.' },
  'ws.cancelled': { en: 'Request cancelled.', id: 'Permintaan dibatalkan.' },

  // Your workspaces
  'ws.list_title': { en: 'Your workspaces', id: 'Ruang kerja Anda' },
  'ws.col.name': { en: 'Workspace', id: 'Ruang kerja' },
  'ws.col.role': { en: 'Your role', id: 'Peran Anda' },
  'ws.col.plan': { en: 'Plan', id: 'Paket' },
  'ws.col.action': { en: 'Action', id: 'Tindakan' },
  'ws.current': { en: 'Current', id: 'Sedang dipakai' },
  'ws.switch': { en: 'Switch', id: 'Pindah' },
  'ws.switch_to': { en: 'Switch to {name}', id: 'Pindah ke {name}' },
  'ws.frozen': { en: 'Frozen', id: 'Dibekukan' },
  'ws.owner_badge': { en: 'Owner', id: 'Pemilik' },
  'ws.plan.free': { en: 'Free', id: 'Free' },
  'ws.plan.pro': { en: 'Pro', id: 'Pro' },
  'ws.plan.custom': { en: 'Custom', id: 'Custom' },
  'ws.create': { en: 'Create a workspace', id: 'Buat ruang kerja' },
  'ws.create_intro': {
    en: 'A new workspace starts on the Free plan with you as its Owner; you switch to it at once.',
    id: 'Ruang kerja baru dimulai dengan paket Free dan Anda sebagai Pemiliknya; Anda langsung pindah ke sana.',
  },
  'ws.create_limit': {
    en: 'You own {owned} of the {limit} workspaces your account may own, so you cannot create another.',
    id: 'Anda memiliki {owned} dari {limit} ruang kerja yang boleh dimiliki akun Anda, jadi tidak bisa membuat lagi.',
  },
  'ws.create_limit_any': {
    en: 'Your account cannot own another workspace.',
    id: 'Akun Anda tidak dapat memiliki ruang kerja lagi.',
  },
  'ws.create_refused': { en: 'Not created: {message}', id: 'Tidak dibuat: {message}' },
  'ws.leave': { en: 'Leave this workspace', id: 'Keluar dari ruang kerja ini' },
  'ws.leave_intro': {
    en: 'You lose access to {name}; an administrator must invite you again to come back.',
    id: 'Anda kehilangan akses ke {name}; administrator harus mengundang Anda lagi agar bisa kembali.',
  },
  'ws.leave_button': { en: 'Leave {name}', id: 'Keluar dari {name}' },
  'ws.leave_question': { en: 'Leave {name} for good?', id: 'Keluar dari {name} untuk seterusnya?' },
  'ws.owner_cannot_leave': {
    en: 'As the Owner you cannot leave {name}: hand the ownership to another member first.',
    id: 'Sebagai Pemilik Anda tidak dapat keluar dari {name}: serahkan kepemilikan ke anggota lain dulu.',
  },
  'ws.to_ownership': { en: 'Transfer ownership', id: 'Alihkan kepemilikan' },

  // Incoming transfer requests
  'ws.requests': { en: 'Ownership requests for you', id: 'Permintaan kepemilikan untuk Anda' },
  'ws.request_text': {
    en: '{name} asks you to become the Owner of {workspace}.',
    id: '{name} meminta Anda menjadi Pemilik {workspace}.',
  },
  'ws.request_when': { en: 'Asked {at}', id: 'Diminta {at}' },
  'ws.request_stay': {
    en: '{name} stays as a member after the transfer.',
    id: '{name} tetap menjadi anggota setelah pengalihan.',
  },
  'ws.request_leaves': {
    en: '{name} leaves the workspace after the transfer.',
    id: '{name} keluar dari ruang kerja setelah pengalihan.',
  },
  'ws.cannot_accept': { en: 'You cannot accept now: {reason}.', id: 'Anda belum dapat menerima: {reason}.' },
  'ws.reason_you.not_member': {
    en: 'you are no longer an active member',
    id: 'Anda bukan lagi anggota aktif',
  },
  'ws.reason_you.owns_workspace': {
    en: 'your account already owns as many workspaces as it may',
    id: 'akun Anda sudah memiliki ruang kerja sebanyak yang diizinkan',
  },
  'ws.accept': { en: 'Accept and become Owner', id: 'Terima dan jadi Pemilik' },
  'ws.accept_question': {
    en: 'Become the Owner of {workspace}?',
    id: 'Menjadi Pemilik {workspace}?',
  },
  'ws.decline': { en: 'Decline', id: 'Tolak' },
  'ws.declined': { en: 'You declined the request.', id: 'Anda menolak permintaan itu.' },
  'ws.request_notice': {
    en: '{name} asks you to take over {workspace}.',
    id: '{name} meminta Anda mengambil alih {workspace}.',
  },
  'ws.review': { en: 'Review the request', id: 'Tinjau permintaan' },

  // Dashboard
  'db.title': { en: 'Dashboard', id: 'Dasbor' },
  'db.quota': { en: 'Plan usage', id: 'Pemakaian paket' },
  'db.q.channels': { en: 'Channels', id: 'Kanal' },
  'db.q.users': { en: 'Members', id: 'Anggota' },
  'db.q.replies_per_day': { en: 'Replies today', id: 'Balasan hari ini' },
  'db.q.tickets_per_month': { en: 'Tickets this month', id: 'Tiket bulan ini' },
  'db.q.leads_per_month': { en: 'Leads this month', id: 'Prospek bulan ini' },
  'db.q.ai_per_month': { en: 'AI answers this month', id: 'Jawaban AI bulan ini' },
  'db.used_of': { en: '{used} of {limit}', id: '{used} dari {limit}' },
  'db.used_unlimited': { en: '{used} (no limit)', id: '{used} (tanpa batas)' },
  'db.resets': { en: 'resets {at}', id: 'diatur ulang {at}' },
  'db.suspended': { en: '{n} suspended', id: '{n} ditangguhkan' },
  'db.billing': { en: 'Plan and billing', id: 'Paket dan tagihan' },
  'db.activity': { en: 'The last 14 days', id: '14 hari terakhir' },
  'db.activity_summary': {
    en: 'In the last 14 days, received: {in}, sent: {out}, new conversations: {conv}.',
    id: 'Dalam 14 hari terakhir, diterima: {in}, terkirim: {out}, percakapan baru: {conv}.',
  },
  'db.in': { en: 'Received', id: 'Diterima' },
  'db.out': { en: 'Sent', id: 'Terkirim' },
  'db.conversations': { en: 'New conversations', id: 'Percakapan baru' },
  'db.date': { en: 'Date', id: 'Tanggal' },
  'db.as_table': { en: 'The numbers per day', id: 'Angka per hari' },
  'db.recent': { en: 'Recent activity', id: 'Aktivitas terbaru' },
  'db.recent_none': { en: 'Nothing has happened yet.', id: 'Belum ada aktivitas.' },
  'db.audit': { en: 'Full audit log', id: 'Log audit lengkap' },
  'db.system': { en: 'System', id: 'Sistem' },
  'db.teams': { en: 'Teams', id: 'Tim' },
  'db.teams_none': { en: 'No teams yet.', id: 'Belum ada tim.' },
  'db.team': { en: 'Team', id: 'Tim' },
  'db.members': { en: 'Members', id: 'Anggota' },
  'db.open': { en: 'Open conversations', id: 'Percakapan terbuka' },
  'db.manage_teams': { en: 'Manage teams', id: 'Kelola tim' },
})

export type WsKey = Parameters<ReturnType<typeof useTr>>[0]
