import type { AnchorHTMLAttributes, ComponentChildren } from 'preact'
import { createElement } from 'preact'
import { useEffect } from 'preact/hooks'
import { ApiError, api } from '../lib/api'
import { extend, locale, t } from '../lib/i18n'
import { linkClick, navigate } from '../lib/router'
import { can, me } from '../lib/session'
import { hold, onEvent, topics } from '../lib/socket'
import { use } from '../lib/state'

/**
 * What the pages beyond the inbox (channels, settings, administration) take from the app's shared
 * library (lib/), bound once here so they read the same: the typed API client, texts per area,
 * navigation, permissions. Their pieces of screen are in ui.tsx, their styles in styles.ts.
 */
export { ApiError, api, can, me }

/** Texts of one area, `{ key: { en, id } }`, keys prefixed by the area (`ch.`, `ws.`, …). */
export type Texts = Readonly<Record<string, { readonly en: string; readonly id: string }>>

/**
 * Registers an area's texts and gives its translator, which re-renders the calling component
 * when the language changes. Call at module level: `export const useTr = texts({...})`.
 */
export const defineTexts = <T extends Texts>(texts: T) => {
  const byLocale = { en: {} as Record<string, string>, id: {} as Record<string, string> }
  for (const [k, v] of Object.entries(texts)) {
    byLocale.en[k] = v.en
    byLocale.id[k] = v.id
  }
  extend(byLocale)
  return () => {
    use(locale)
    return (key: keyof T & string, params: Readonly<Record<string, string | number>> = {}) => t(key, params)
  }
}

/** The kit's own texts (buttons and states every area shares). */
export const useKitTr = defineTexts({
  'k.loading': { en: 'Loading…', id: 'Memuat…' },
  'k.save': { en: 'Save', id: 'Simpan' },
  'k.saved': { en: 'Saved.', id: 'Tersimpan.' },
  'k.cancel': { en: 'Cancel', id: 'Batal' },
  'k.create': { en: 'Create', id: 'Buat' },
  'k.edit': { en: 'Edit', id: 'Ubah' },
  'k.delete': { en: 'Delete', id: 'Hapus' },
  'k.confirm': { en: 'Yes, go ahead', id: 'Ya, lanjutkan' },
  'k.copy': { en: 'Copy', id: 'Salin' },
  'k.copied': { en: 'Copied', id: 'Tersalin' },
  'k.retry': { en: 'Try again', id: 'Coba lagi' },
  'k.more': { en: 'Load more', id: 'Muat lebih banyak' },
  'k.none': { en: 'Nothing here yet.', id: 'Belum ada apa-apa.' },
  'k.error': { en: 'Something went wrong: {message}', id: 'Terjadi kesalahan: {message}' },
  'k.fix_fields': { en: 'Check the marked fields.', id: 'Periksa kolom yang ditandai.' },
  'k.unset': { en: 'Not set', id: 'Belum diisi' },
  'k.yes': { en: 'Yes', id: 'Ya' },
  'k.no': { en: 'No', id: 'Tidak' },
})

export const useLocale = () => use(locale)

/** The envelope with its data typed as the page reads it (for answers the schema leaves open). */
export const got = async <T>(
  p: Promise<{ readonly data: unknown; readonly meta: Readonly<Record<string, unknown>> }>,
) => {
  const e = await p
  return { data: e.data as T, meta: e.meta }
}

/**
 * What to tell the person about a failed call: the server's message, which it writes in their
 * language (the app sends `X-Locale`) and which for a refusal names what was refused in words,
 * never a permission's name.
 */
export const failText = (e: unknown) =>
  e instanceof ApiError ? e.message : e instanceof Error ? e.message : String(e)

/** The per-field messages of a 422, empty for any other failure. */
export const failFields = (e: unknown): Readonly<Record<string, string>> =>
  e instanceof ApiError ? e.fields : {}

export const href = (path: string) => `/app${path}`
export const go = (path: string) => navigate(path)

/** A link inside the app: navigates without reloading, opens in a new tab as usual. */
export const Link = (
  props: Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string; children: ComponentChildren },
) => {
  const { to, ...rest } = props
  return createElement('a', { ...rest, href: href(to), onClick: linkClick(to) })
}

/**
 * Runs `f` with an event's data on each of the signed-in workspace's events (`ws:{id}`) named in
 * `names` while the calling page is shown, and with `{}` when the server could not replay what
 * was missed (anything may have changed): another person's change reloads what the page shows.
 */
export const useWorkspaceEvents = (
  names: readonly string[],
  f: (data: Readonly<Record<string, unknown>>) => void,
) =>
  useEffect(() => {
    const who = me.get()
    if (!who) return
    const release = hold(topics.workspace(who.workspace.id), () => f({}))
    const off = onEvent((e) => {
      if (names.includes(e.event)) f(e.data as Readonly<Record<string, unknown>>)
    })
    return () => {
      off()
      release()
    }
  }, [])
