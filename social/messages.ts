import { addMessages } from '../actors/i18n'

/** The social service's own texts, English and Indonesian, added to the shared catalogue. */
addMessages({
  'social.plan_required': {
    en: 'This workspace is not on an active Pro plan.',
    id: 'Workspace ini tidak memiliki paket Pro yang aktif.',
  },
  'social.field.date': {
    en: 'must be a date in the form YYYY-MM-DD',
    id: 'harus berupa tanggal dengan format YYYY-MM-DD',
  },
  'social.field.date_order': {
    en: 'must not be before from',
    id: 'tidak boleh sebelum from',
  },
  'social.field.channels': {
    en: 'must be account ids (positive integers) separated by commas',
    id: 'harus berupa id akun (bilangan bulat positif) yang dipisahkan koma',
  },
  'social.webhook.disabled': {
    en: 'The webhook is not configured on this server.',
    id: 'Webhook belum diatur di server ini.',
  },
  'social.webhook.signature': {
    en: 'Missing or invalid X-Hub-Signature-256.',
    id: 'X-Hub-Signature-256 tidak ada atau tidak valid.',
  },
  'social.webhook.verify_token': {
    en: 'The subscription request is invalid or its verify token does not match.',
    id: 'Permintaan langganan tidak valid atau verify token tidak cocok.',
  },
  'social.webhook.payload': {
    en: 'The notification is not valid JSON of the expected shape.',
    id: 'Notifikasi bukan JSON dengan bentuk yang diharapkan.',
  },
})
