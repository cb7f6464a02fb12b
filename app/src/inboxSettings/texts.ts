/**
 * The inbox settings' texts (reply templates, conversation categories, labels and label rules,
 * custom fields) in English and Indonesian; keys prefixed `is.`, looked up through `useTr` (kit.ts).
 */
export const texts = {
  'is.refused': {
    en: 'Your role does not let you manage this. An administrator can change your role if you need it.',
    id: 'Peran Anda tidak mengizinkan pengelolaan ini. Administrator dapat mengubah peran Anda bila perlu.',
  },
  'is.move_up': { en: 'Move {name} up', id: 'Naikkan {name}' },
  'is.move_down': { en: 'Move {name} down', id: 'Turunkan {name}' },
  'is.edit_of': { en: 'Edit {name}', id: 'Ubah {name}' },
  'is.actions': { en: 'Actions', id: 'Tindakan' },
  'is.order': { en: 'Order', id: 'Urutan' },
  'is.deleted': { en: '“{name}” deleted.', id: '“{name}” dihapus.' },
  'is.created': { en: '“{name}” created.', id: '“{name}” dibuat.' },
  'is.saved': { en: '“{name}” saved.', id: '“{name}” disimpan.' },
  'is.changed_elsewhere': {
    en: 'Someone else changed this list; it is up to date.',
    id: 'Orang lain mengubah daftar ini; tampilan sudah diperbarui.',
  },
  'is.color': { en: 'Colour', id: 'Warna' },
  'is.color.none': { en: 'No colour', id: 'Tanpa warna' },
  'is.color.#ef4444': { en: 'Red', id: 'Merah' },
  'is.color.#f97316': { en: 'Orange', id: 'Oranye' },
  'is.color.#f59e0b': { en: 'Amber', id: 'Jingga' },
  'is.color.#eab308': { en: 'Yellow', id: 'Kuning' },
  'is.color.#84cc16': { en: 'Lime', id: 'Hijau muda' },
  'is.color.#22c55e': { en: 'Green', id: 'Hijau' },
  'is.color.#14b8a6': { en: 'Teal', id: 'Hijau toska' },
  'is.color.#06b6d4': { en: 'Cyan', id: 'Sian' },
  'is.color.#3b82f6': { en: 'Blue', id: 'Biru' },
  'is.color.#6366f1': { en: 'Indigo', id: 'Nila' },
  'is.color.#a855f7': { en: 'Purple', id: 'Ungu' },
  'is.color.#ec4899': { en: 'Pink', id: 'Merah muda' },
  'is.color.#64748b': { en: 'Slate', id: 'Abu-abu' },

  // Reply templates
  'is.tpl.title': { en: 'Reply templates', id: 'Template balasan' },
  'is.tpl.new': { en: 'New template', id: 'Template baru' },
  'is.tpl.empty': {
    en: 'No reply templates yet. A template is a saved reply: agents type / and its shortcut in the reply box to put it in, filled in with the customer’s name and their own.',
    id: 'Belum ada template balasan. Template adalah balasan tersimpan: agen mengetik / dan pintasannya di kotak balasan untuk menyisipkannya, lengkap dengan nama pelanggan dan nama agen.',
  },
  'is.tpl.name': { en: 'Name', id: 'Nama' },
  'is.tpl.shortcut': { en: 'Shortcut', id: 'Pintasan' },
  'is.tpl.shortcut_hint': {
    en: 'Letters, digits, - or _, up to 30. Agents type / and this to find the template.',
    id: 'Huruf, angka, - atau _, maksimal 30. Agen mengetik / lalu ini untuk menemukan template.',
  },
  'is.tpl.category': { en: 'Category', id: 'Kategori' },
  'is.tpl.category_hint': {
    en: 'Optional: groups templates in the list.',
    id: 'Opsional: mengelompokkan template di daftar.',
  },
  'is.tpl.body': { en: 'Text', id: 'Isi' },
  'is.tpl.body_hint': {
    en: 'These are filled in when an agent uses it: {vars}.',
    id: 'Bagian ini diisi saat agen memakainya: {vars}.',
  },
  'is.tpl.attachment': { en: 'Attachment', id: 'Lampiran' },
  'is.tpl.attachment_hint': {
    en: 'Optional: one file up to 16 MB, sent with the reply.',
    id: 'Opsional: satu berkas hingga 16 MB, dikirim bersama balasan.',
  },
  'is.tpl.attachment_replace': { en: 'Replace attachment', id: 'Ganti lampiran' },
  'is.tpl.attachment_remove': { en: 'Remove attachment', id: 'Hapus lampiran' },
  'is.tpl.attachment_remove_q': {
    en: 'Remove the attachment from this template?',
    id: 'Hapus lampiran dari template ini?',
  },
  'is.tpl.attachment_removed': { en: 'Attachment removed.', id: 'Lampiran dihapus.' },
  'is.tpl.none': { en: 'none', id: 'tidak ada' },
  'is.tpl.delete_q': {
    en: 'Delete “{name}”? Agents can no longer insert it.',
    id: 'Hapus “{name}”? Agen tidak bisa lagi menyisipkannya.',
  },
  'is.tpl.preview': { en: 'How agents see it', id: 'Tampilan bagi agen' },
  'is.tpl.preview_hint': {
    en: 'Typing /{shortcut} in the reply box shows this; Enter or a click puts the text in.',
    id: 'Mengetik /{shortcut} di kotak balasan menampilkan ini; Enter atau klik menyisipkan teksnya.',
  },
  'is.tpl.preview_hint_noshortcut': {
    en: 'Without a shortcut agents find it by typing / and part of its name.',
    id: 'Tanpa pintasan, agen menemukannya dengan mengetik / dan sebagian namanya.',
  },
  'is.tpl.preview_box': { en: 'Reply box (example)', id: 'Kotak balasan (contoh)' },
  'is.tpl.preview_inserted': {
    en: 'Inserted for a customer named Budi Santoso:',
    id: 'Disisipkan untuk pelanggan bernama Budi Santoso:',
  },
  'is.tpl.search': { en: 'Search templates', id: 'Cari template' },
  'is.tpl.no_match': { en: 'No template matches.', id: 'Tidak ada template yang cocok.' },

  // Conversation categories
  'is.cat.title': { en: 'Conversation categories', id: 'Kategori percakapan' },
  'is.cat.new': { en: 'New category', id: 'Kategori baru' },
  'is.cat.empty': {
    en: 'No categories yet. Categories sort conversations by topic (Orders › Refunds, say), so agents can file each one and reports can count them. Up to 3 levels.',
    id: 'Belum ada kategori. Kategori mengelompokkan percakapan menurut topik (misalnya Pesanan › Pengembalian dana), agar agen dapat menandainya dan laporan dapat menghitungnya. Maksimal 3 tingkat.',
  },
  'is.cat.name': { en: 'Name', id: 'Nama' },
  'is.cat.parent': { en: 'Inside', id: 'Di dalam' },
  'is.cat.top': { en: 'Top level', id: 'Tingkat teratas' },
  'is.cat.count': {
    en: '{total} of {limit} categories',
    id: '{total} dari {limit} kategori',
  },
  'is.cat.sub': { en: 'Subcategories: {n}', id: 'Subkategori: {n}' },
  'is.cat.delete_q': {
    en: 'Delete “{name}”? Its subcategories and conversations move up to {parent}.',
    id: 'Hapus “{name}”? Subkategori dan percakapannya pindah ke {parent}.',
  },
  'is.cat.uncategorized': { en: 'no category', id: 'tanpa kategori' },
  'is.cat.deleted_moved': {
    en: '“{name}” deleted; {n} conversations moved.',
    id: '“{name}” dihapus; {n} percakapan dipindahkan.',
  },

  // Labels and label rules
  'is.lab.title': { en: 'Labels and label rules', id: 'Label dan aturan label' },
  'is.lab.labels': { en: 'Contact labels', id: 'Label kontak' },
  'is.lab.new': { en: 'New label', id: 'Label baru' },
  'is.lab.empty': {
    en: 'No labels yet. Labels tag contacts (VIP, Reseller, …) so agents see who they are talking to and you can filter and reach them together.',
    id: 'Belum ada label. Label menandai kontak (VIP, Reseller, …) agar agen tahu siapa lawan bicaranya dan Anda dapat menyaring serta menjangkau mereka bersama-sama.',
  },
  'is.lab.name': { en: 'Name', id: 'Nama' },
  'is.lab.contacts': { en: 'Contacts', id: 'Kontak' },
  'is.lab.delete_q': {
    en: 'Delete “{name}”? It is taken off {n} contacts.',
    id: 'Hapus “{name}”? Label dilepas dari {n} kontak.',
  },
  'is.rule.title': { en: 'Messaging-app label rules', id: 'Aturan label aplikasi pesan' },
  'is.rule.intro': {
    en: 'When someone puts a label on a chat in the messaging app on the phone, Kotak can act on it: label the contact, hand the conversation to a team, or mark it solved.',
    id: 'Saat seseorang memberi label pada chat di aplikasi pesan di ponsel, Kotak dapat menindaklanjutinya: memberi label pada kontak, menyerahkan percakapan ke tim, atau menandainya selesai.',
  },
  'is.rule.new': { en: 'New rule', id: 'Aturan baru' },
  'is.rule.empty': {
    en: 'No label rules yet.',
    id: 'Belum ada aturan label.',
  },
  'is.rule.no_numbers': {
    en: 'Link a messaging-app number under Channels first: rules belong to a number.',
    id: 'Tautkan dulu nomor aplikasi pesan di Kanal: aturan berlaku untuk satu nomor.',
  },
  'is.rule.channel': { en: 'Number', id: 'Nomor' },
  'is.rule.label_name': { en: 'Label on the phone', id: 'Label di ponsel' },
  'is.rule.label_name_hint': {
    en: 'The label’s name exactly as it is in the messaging app.',
    id: 'Nama label persis seperti di aplikasi pesan.',
  },
  'is.rule.action': { en: 'Then', id: 'Lalu' },
  'is.rule.action.contact_label': { en: 'Give the contact a label', id: 'Beri label pada kontak' },
  'is.rule.action.assign_team': { en: 'Hand the conversation to a team', id: 'Serahkan percakapan ke tim' },
  'is.rule.action.solve': { en: 'Mark the conversation solved', id: 'Tandai percakapan selesai' },
  'is.rule.value.contact_label': { en: 'Contact label', id: 'Label kontak' },
  'is.rule.value.assign_team': { en: 'Frontline team', id: 'Tim frontline' },
  'is.rule.pick': { en: 'Choose…', id: 'Pilih…' },
  'is.rule.active': { en: 'Rule is on', id: 'Aturan aktif' },
  'is.rule.on': { en: 'On', id: 'Aktif' },
  'is.rule.off': { en: 'Off', id: 'Nonaktif' },
  'is.rule.turn_on': { en: 'Turn on', id: 'Aktifkan' },
  'is.rule.turn_off': { en: 'Turn off', id: 'Nonaktifkan' },
  'is.rule.what': { en: 'What it does', id: 'Yang dilakukan' },
  'is.rule.status': { en: 'Status', id: 'Status' },
  'is.rule.reads.contact_label': {
    en: 'When a chat on {channel} gets the label “{label}” on the phone, the contact gets the label “{value}”.',
    id: 'Saat chat di {channel} diberi label “{label}” di ponsel, kontaknya diberi label “{value}”.',
  },
  'is.rule.reads.assign_team': {
    en: 'When a chat on {channel} gets the label “{label}” on the phone, the conversation goes to the team {value}.',
    id: 'Saat chat di {channel} diberi label “{label}” di ponsel, percakapannya diserahkan ke tim {value}.',
  },
  'is.rule.reads.solve': {
    en: 'When a chat on {channel} gets the label “{label}” on the phone, the conversation is marked solved.',
    id: 'Saat chat di {channel} diberi label “{label}” di ponsel, percakapannya ditandai selesai.',
  },
  'is.rule.delete_q': { en: 'Delete this rule?', id: 'Hapus aturan ini?' },
  'is.rule.delete_of': { en: 'Delete rule for “{label}”', id: 'Hapus aturan untuk “{label}”' },
  'is.rule.deleted': { en: 'Rule deleted.', id: 'Aturan dihapus.' },
  'is.rule.saved': { en: 'Rule saved.', id: 'Aturan disimpan.' },

  // Custom fields
  'is.fld.title': { en: 'Custom fields', id: 'Kolom kustom' },
  'is.fld.intro': {
    en: 'Extra fields you keep on each record, beyond the built-in ones: a customer number on contacts, an order number on conversations, a contract date on clients. Up to {max} per kind of record.',
    id: 'Kolom tambahan yang Anda simpan di setiap data, selain kolom bawaan: nomor pelanggan di kontak, nomor pesanan di percakapan, tanggal kontrak di klien. Maksimal {max} per jenis data.',
  },
  'is.fld.entities': { en: 'Kind of record', id: 'Jenis data' },
  'is.fld.entity.contact': { en: 'Contacts', id: 'Kontak' },
  'is.fld.entity.interaction': { en: 'Conversations', id: 'Percakapan' },
  'is.fld.entity.ticket': { en: 'Tickets', id: 'Tiket' },
  'is.fld.entity.lead': { en: 'Leads', id: 'Prospek' },
  'is.fld.entity.client': { en: 'Clients', id: 'Klien' },
  'is.fld.new': { en: 'New field', id: 'Kolom baru' },
  'is.fld.empty': {
    en: 'No custom fields for {entity} yet.',
    id: 'Belum ada kolom kustom untuk {entity}.',
  },
  'is.fld.count': { en: '{n} of {max} fields', id: '{n} dari {max} kolom' },
  'is.fld.label': { en: 'Label', id: 'Label' },
  'is.fld.type': { en: 'Type', id: 'Jenis' },
  'is.fld.key': { en: 'Key', id: 'Kunci' },
  'is.fld.key_hint': {
    en: 'Optional: how the API and imports name it (lowercase, digits, _). Made from the label when empty. Cannot change later.',
    id: 'Opsional: nama kolom di API dan impor (huruf kecil, angka, _). Dibuat dari label bila kosong. Tidak dapat diubah nanti.',
  },
  'is.fld.fixed': {
    en: 'Type and key cannot change once the field exists.',
    id: 'Jenis dan kunci tidak dapat diubah setelah kolom dibuat.',
  },
  'is.fld.options': { en: 'Choices', id: 'Pilihan' },
  'is.fld.options_hint': { en: 'One per line.', id: 'Satu per baris.' },
  'is.fld.type.text': { en: 'Short text', id: 'Teks pendek' },
  'is.fld.type.textarea': { en: 'Long text', id: 'Teks panjang' },
  'is.fld.type.number': { en: 'Number', id: 'Angka' },
  'is.fld.type.date': { en: 'Date', id: 'Tanggal' },
  'is.fld.type.select': { en: 'Choice from a list', id: 'Pilihan dari daftar' },
  'is.fld.type.checkbox': { en: 'Yes/no', id: 'Ya/tidak' },
  'is.fld.delete_q': {
    en: 'Delete “{name}”? The values kept in it are removed.',
    id: 'Hapus “{name}”? Nilai yang tersimpan di dalamnya ikut dihapus.',
  },
} as const

export type TextKey = keyof typeof texts
