import { defineTexts } from '../kit'

/** The profile page's texts in English and Indonesian, keys prefixed `pf.`. */
export const useTr = defineTexts({
  'pf.title': { en: 'Your profile', id: 'Profil Anda' },
  'pf.intro': {
    en: 'How you appear to your colleagues, the language and time zone Kotak uses for you, and where you are signed in.',
    id: 'Cara Anda tampil bagi rekan kerja, bahasa dan zona waktu yang dipakai Kotak untuk Anda, serta perangkat tempat Anda masuk.',
  },

  'pf.photo': { en: 'Photo', id: 'Foto' },
  'pf.photo_of': { en: 'Photo of {name}', id: 'Foto {name}' },
  'pf.photo_new': { en: 'Preview of the new photo', id: 'Pratinjau foto baru' },
  'pf.photo_none': {
    en: 'No photo yet: your colleagues see your initials.',
    id: 'Belum ada foto: rekan kerja melihat inisial Anda.',
  },
  'pf.photo_choose': { en: 'Choose a photo', id: 'Pilih foto' },
  'pf.photo_hint': {
    en: 'PNG, JPG or WebP, up to 1 MB. It is shown in a circle.',
    id: 'PNG, JPG, atau WebP, maksimal 1 MB. Foto ditampilkan dalam lingkaran.',
  },
  'pf.photo_upload': { en: 'Use this photo', id: 'Pakai foto ini' },
  'pf.photo_uploaded': { en: 'Your photo is updated.', id: 'Foto Anda sudah diperbarui.' },
  'pf.photo_remove': { en: 'Remove photo', id: 'Hapus foto' },
  'pf.photo_remove_q': { en: 'Remove your photo?', id: 'Hapus foto Anda?' },
  'pf.photo_removed': { en: 'Your photo is removed.', id: 'Foto Anda sudah dihapus.' },

  'pf.details': { en: 'Name, language and time zone', id: 'Nama, bahasa, dan zona waktu' },
  'pf.name': { en: 'Your name', id: 'Nama Anda' },
  'pf.name_hint': { en: 'Up to 100 characters.', id: 'Maksimal 100 karakter.' },
  'pf.email': { en: 'E-mail', id: 'Email' },
  'pf.language': { en: 'Language', id: 'Bahasa' },
  'pf.timezone': { en: 'Time zone', id: 'Zona waktu' },
  'pf.timezone_follow': {
    en: 'Same as the workspace ({zone})',
    id: 'Sama dengan workspace ({zone})',
  },
  'pf.timezone_hint': {
    en: 'Times in reports and business hours are shown in this zone.',
    id: 'Waktu di laporan dan jam kerja ditampilkan dalam zona ini.',
  },
  'pf.saved': { en: 'Your profile is saved.', id: 'Profil Anda sudah disimpan.' },

  'pf.alerts': { en: 'Notifications', id: 'Notifikasi' },
  'pf.sound': {
    en: 'Play a sound for new conversations and notifications',
    id: 'Bunyikan suara untuk percakapan baru dan notifikasi',
  },
  'pf.sound_on': { en: 'Sound is on.', id: 'Suara aktif.' },
  'pf.sound_off': { en: 'Sound is off.', id: 'Suara nonaktif.' },
  'pf.desktop': { en: 'Desktop notifications', id: 'Notifikasi desktop' },
  'pf.desktop_granted': {
    en: 'This browser shows a notification while Kotak is in a background tab.',
    id: 'Peramban ini menampilkan notifikasi saat Kotak berada di tab latar belakang.',
  },
  'pf.desktop_default': {
    en: 'This browser does not show notifications from Kotak yet.',
    id: 'Peramban ini belum menampilkan notifikasi dari Kotak.',
  },
  'pf.desktop_denied': {
    en: 'This browser blocks notifications from Kotak. Allow them in the browser’s site settings.',
    id: 'Peramban ini memblokir notifikasi dari Kotak. Izinkan lewat pengaturan situs di peramban.',
  },
  'pf.desktop_unsupported': {
    en: 'This browser cannot show notifications.',
    id: 'Peramban ini tidak dapat menampilkan notifikasi.',
  },
  'pf.desktop_allow': { en: 'Allow notifications', id: 'Izinkan notifikasi' },
  'pf.desktop_per_browser': {
    en: 'This is set for each browser you use.',
    id: 'Ini diatur untuk setiap peramban yang Anda pakai.',
  },

  'pf.passkeys': { en: 'Passkeys', id: 'Passkey' },

  'pf.sessions': { en: 'Where you are signed in', id: 'Tempat Anda masuk' },
  'pf.sessions_intro': {
    en: 'End a session you do not recognise, or one on a device you no longer use: it is signed out at once.',
    id: 'Akhiri sesi yang tidak Anda kenali, atau sesi di perangkat yang tidak Anda pakai lagi: sesi itu langsung keluar.',
  },
  'pf.this_device': { en: 'This device', id: 'Perangkat ini' },
  'pf.session_started': { en: 'Signed in {date}', id: 'Masuk {date}' },
  'pf.session_from': { en: 'from {ip}', id: 'dari {ip}' },
  'pf.via.link': { en: 'with a sign-in link', id: 'dengan tautan masuk' },
  'pf.via.passkey': { en: 'with a passkey', id: 'dengan passkey' },
  'pf.via.oidc': { en: 'with single sign-on', id: 'dengan single sign-on' },
  'pf.unknown_device': { en: 'Unknown browser', id: 'Peramban tidak dikenal' },
  'pf.browser_on': { en: '{browser} on {os}', id: '{browser} di {os}' },
  'pf.end': { en: 'End session', id: 'Akhiri sesi' },
  'pf.end_q': { en: 'Sign this device out?', id: 'Keluarkan perangkat ini?' },
  'pf.ended': { en: 'The session is ended.', id: 'Sesi sudah diakhiri.' },
  'pf.everywhere': {
    en: 'Lost a phone, or signed in on a shared computer? Sign out of every device, this one too.',
    id: 'Kehilangan ponsel, atau masuk di komputer bersama? Keluar dari semua perangkat, termasuk yang ini.',
  },
})
