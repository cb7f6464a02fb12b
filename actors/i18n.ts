/**
 * The message catalogue, English and Indonesian. Codes stay stable; only these texts change
 * with `X-Locale`. Keys are error codes, `field.*` for input errors, or domain keys.
 */
export type Locale = 'en' | 'id'
export const locales: readonly Locale[] = ['en', 'id']

type Catalogue = Readonly<Record<string, string>>

const en: Catalogue = {
  unauthorized: 'Authentication is required, or the credential is invalid or revoked.',
  plan_required: 'This needs an active Pro or Custom plan.',
  forbidden: 'You do not have permission to do this.',
  'forbidden.app_only': 'This endpoint is available to the app only, not to API keys.',
  'forbidden.read_key': 'This API key is read-only.',
  not_found: 'Not found.',
  method_not_allowed: 'Method not allowed.',
  conflict: 'The request conflicts with the current state.',
  workspace_required: 'You are not a member of any workspace yet.',
  payload_too_large: 'The request body is too large (limit {limit} bytes).',
  csrf_mismatch: 'Missing or invalid CSRF token.',
  validation_error: 'Some fields are invalid.',
  workspace_frozen: 'This workspace is frozen because its contract ended.',
  rate_limited: 'Too many requests; retry in {seconds} seconds.',
  server_error: 'Something went wrong on our side; please retry later.',
  ai_error: 'The AI provider had a problem; your AI quota was not used.',
  ai_unavailable: 'AI features are not set up on this server.',
  unavailable: 'Temporarily unavailable; retry in a moment.',
  'auth.oidc_unconfigured': 'Sign-in through an identity provider is not configured on this server.',
  'auth.no_account': 'No Kotak account uses this e-mail address.',
  'auth.link_invalid': 'This sign-in link is invalid, used or expired.',
  'auth.sign_in_failed': 'Sign-in failed; please try again.',
  'field.required': 'is required',
  'field.invalid': 'is invalid',
  'field.type': 'must be a {type}',
  'field.unexpected': 'is not allowed',
  'field.integer': 'must be an integer',
  'field.min_length': 'must be at least {n} characters',
  'field.max_length': 'must be at most {n} characters',
  'field.min_items': 'must have at least {n} items',
  'field.max_items': 'must have at most {n} items',
  'field.minimum': 'must be at least {n}',
  'field.maximum': 'must be at most {n}',
  'field.one_of': 'must be one of: {values}',
  'field.pattern': 'has an invalid format',
  'field.json': 'is not valid JSON',
  'field.content_type': 'must be sent as application/json',
  'field.timezone': 'must be an IANA time zone such as Asia/Jakarta',
}

const id: Catalogue = {
  unauthorized: 'Autentikasi diperlukan, atau kredensial tidak valid atau sudah dicabut.',
  plan_required: 'Fitur ini memerlukan paket Pro atau Custom yang aktif.',
  forbidden: 'Anda tidak memiliki izin untuk melakukan ini.',
  'forbidden.app_only': 'Endpoint ini hanya untuk aplikasi, bukan untuk kunci API.',
  'forbidden.read_key': 'Kunci API ini hanya untuk membaca.',
  not_found: 'Tidak ditemukan.',
  method_not_allowed: 'Metode tidak diizinkan.',
  conflict: 'Permintaan bertentangan dengan keadaan saat ini.',
  workspace_required: 'Anda belum menjadi anggota workspace mana pun.',
  payload_too_large: 'Isi permintaan terlalu besar (batas {limit} byte).',
  csrf_mismatch: 'Token CSRF tidak ada atau tidak valid.',
  validation_error: 'Beberapa isian tidak valid.',
  workspace_frozen: 'Workspace ini dibekukan karena kontraknya telah berakhir.',
  rate_limited: 'Terlalu banyak permintaan; coba lagi dalam {seconds} detik.',
  server_error: 'Terjadi kesalahan di sisi kami; silakan coba lagi nanti.',
  ai_error: 'Penyedia AI mengalami masalah; kuota AI Anda tidak terpakai.',
  ai_unavailable: 'Fitur AI belum diatur di server ini.',
  unavailable: 'Sementara tidak tersedia; coba lagi sebentar lagi.',
  'auth.oidc_unconfigured': 'Masuk melalui penyedia identitas belum diatur di server ini.',
  'auth.no_account': 'Tidak ada akun Kotak dengan alamat e-mail ini.',
  'auth.link_invalid': 'Tautan masuk ini tidak valid, sudah dipakai, atau kedaluwarsa.',
  'auth.sign_in_failed': 'Gagal masuk; silakan coba lagi.',
  'field.required': 'wajib diisi',
  'field.invalid': 'tidak valid',
  'field.type': 'harus berupa {type}',
  'field.unexpected': 'tidak diizinkan',
  'field.integer': 'harus bilangan bulat',
  'field.min_length': 'minimal {n} karakter',
  'field.max_length': 'maksimal {n} karakter',
  'field.min_items': 'minimal {n} item',
  'field.max_items': 'maksimal {n} item',
  'field.minimum': 'minimal {n}',
  'field.maximum': 'maksimal {n}',
  'field.one_of': 'harus salah satu dari: {values}',
  'field.pattern': 'formatnya tidak valid',
  'field.json': 'bukan JSON yang valid',
  'field.content_type': 'harus dikirim sebagai application/json',
  'field.timezone': 'harus zona waktu IANA seperti Asia/Jakarta',
}

const catalogues: Readonly<Record<Locale, Catalogue>> = { en, id }

/** Domain modules add their keys at load time, both languages at once, so none can be missing. */
export const addMessages = (
  entries: Readonly<Record<string, { readonly en: string; readonly id: string }>>,
) => {
  for (const [key, text] of Object.entries(entries)) {
    // One key, one text: two modules giving one key different texts would show one of them the
    // other's message, depending on which module loaded last.
    const had = catalogues.en[key]
    if (had !== undefined && (had !== text.en || catalogues.id[key] !== text.id)) {
      throw new Error(`message key ${key} is defined twice with different texts`)
    }
    ;(catalogues.en as Record<string, string>)[key] = text.en
    ;(catalogues.id as Record<string, string>)[key] = text.id
  }
}

export const t = (
  locale: Locale,
  key: string,
  params?: Readonly<Record<string, string | number>>,
): string => {
  const text = catalogues[locale][key] ?? catalogues.en[key] ?? key
  return params ? text.replace(/\{(\w+)\}/g, (m, name: string) => String(params[name] ?? m)) : text
}

export const hasMessage = (key: string): boolean => key in catalogues.en

/** `X-Locale` wins; anything unknown falls back to English. */
export const pickLocale = (header: string | undefined, fallback: Locale = 'en'): Locale => {
  const v = header?.trim().toLowerCase().slice(0, 2)
  return v === 'id' || v === 'en' ? v : fallback
}
