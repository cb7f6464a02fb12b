import { extend } from '../lib/i18n'

/**
 * The texts of signing in by a one-time link (the link's page, the e-mail form) and of signing out
 * of every device, in English and Indonesian. Kept beside the pages, not in the shared catalogue.
 */
extend({
  en: {
    'link.for': 'This one-time link signs you in as {email}.',
    'link.button': 'Sign in',
    'link.signing': 'Signing in…',
    'link.once': 'The link works once: pressing the button uses it.',
    'link.used_title': 'This sign-in link was already used',
    'link.used': 'Each sign-in link works only once, and this one has been used. Get a new one to sign in.',
    'link.expired_title': 'This sign-in link has expired',
    'link.expired':
      'Sign-in links work for a short time only (an e-mailed one for 30 minutes), and this one ran out. Get a new one to sign in.',
    'link.invalid_title': 'This sign-in link does not work',
    'link.invalid':
      'The link may have been cut short or changed on the way. Open the whole link from the message, or get a new one.',
    'link.new': 'Get a new link',
    'signin.email_label': 'Your e-mail address',
    'signin.email_help': 'We e-mail you a link that signs you in once, within 30 minutes.',
    'signin.email_send': 'E-mail me a sign-in link',
    'signin.email_sending': 'Sending…',
    'signin.email_sent':
      'If {email} has a Kotak account, a sign-in link is on its way. Open it within 30 minutes; if nothing arrives, look in the spam folder.',
    'signin.email_again': 'Send to another address',
    'signin.or': 'or',
    'signout.all': 'Sign out of every device',
  },
  id: {
    'link.for': 'Tautan sekali pakai ini memasukkan Anda sebagai {email}.',
    'link.button': 'Masuk',
    'link.signing': 'Sedang masuk…',
    'link.once': 'Tautan hanya berlaku sekali: menekan tombol akan memakainya.',
    'link.used_title': 'Tautan masuk ini sudah dipakai',
    'link.used':
      'Setiap tautan masuk hanya berlaku sekali, dan tautan ini sudah dipakai. Minta tautan baru untuk masuk.',
    'link.expired_title': 'Tautan masuk ini sudah kedaluwarsa',
    'link.expired':
      'Tautan masuk hanya berlaku sebentar (tautan lewat e-mail selama 30 menit), dan waktu tautan ini sudah habis. Minta tautan baru untuk masuk.',
    'link.invalid_title': 'Tautan masuk ini tidak berfungsi',
    'link.invalid':
      'Tautan mungkin terpotong atau berubah di jalan. Buka tautan lengkap dari pesannya, atau minta tautan baru.',
    'link.new': 'Minta tautan baru',
    'signin.email_label': 'Alamat e-mail Anda',
    'signin.email_help': 'Kami mengirim tautan lewat e-mail yang memasukkan Anda sekali, dalam 30 menit.',
    'signin.email_send': 'Kirimkan tautan masuk ke e-mail saya',
    'signin.email_sending': 'Mengirim…',
    'signin.email_sent':
      'Jika {email} memiliki akun Kotak, tautan masuk sedang dikirim. Buka dalam 30 menit; jika tidak ada, periksa folder spam.',
    'signin.email_again': 'Kirim ke alamat lain',
    'signin.or': 'atau',
    'signout.all': 'Keluar dari semua perangkat',
  },
})
