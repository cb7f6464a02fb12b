import { useEffect, useState } from 'preact/hooks'
import { ApiError, api } from '../lib/api'
import { fullTime, meaningful } from '../lib/format'
import { extend, locale, t } from '../lib/i18n'
import * as Passkeys from '../lib/passkeys'
import { use } from '../lib/state'
import './passkeysTexts'

/** The page's own texts (the first load has the few the sign-in button and the menus need). */
extend({
  en: {
    'pk.title': 'Passkeys',
    'pk.intro':
      'A passkey signs you in with this device’s screen lock, fingerprint or face, or with a security key: no link or password to wait for. Add one on each device you use.',
    'pk.none': 'You have no passkeys yet.',
    'pk.list': 'Your passkeys',
    'pk.added': 'Added {date}',
    'pk.used': 'last used {date}',
    'pk.never_used': 'not used yet',
    'pk.synced': 'synced',
    'pk.name': 'Name',
    'pk.name_help': 'Something you will recognise, such as “Work laptop” or “My phone”.',
    'pk.add': 'Add a passkey',
    'pk.adding': 'Waiting for your device…',
    'pk.rename': 'Rename',
    'pk.save': 'Save',
    'pk.cancel': 'Cancel',
    'pk.delete': 'Delete',
    'pk.delete_confirm': 'Delete the passkey “{name}”? It will no longer sign you in.',
    'pk.unsupported': 'This browser cannot use passkeys. Open Kotak in a recent browser to add one.',
  },
  id: {
    'pk.title': 'Passkey',
    'pk.intro':
      'Passkey memasukkan Anda dengan kunci layar, sidik jari, atau wajah di perangkat ini, atau dengan kunci keamanan: tanpa menunggu tautan atau mengetik kata sandi. Tambahkan satu di setiap perangkat yang Anda pakai.',
    'pk.none': 'Anda belum punya passkey.',
    'pk.list': 'Passkey Anda',
    'pk.added': 'Ditambahkan {date}',
    'pk.used': 'terakhir dipakai {date}',
    'pk.never_used': 'belum pernah dipakai',
    'pk.synced': 'tersinkron',
    'pk.name': 'Nama',
    'pk.name_help': 'Nama yang mudah Anda kenali, misalnya “Laptop kantor” atau “Ponsel saya”.',
    'pk.add': 'Tambah passkey',
    'pk.adding': 'Menunggu perangkat Anda…',
    'pk.rename': 'Ganti nama',
    'pk.save': 'Simpan',
    'pk.cancel': 'Batal',
    'pk.delete': 'Hapus',
    'pk.delete_confirm': 'Hapus passkey “{name}”? Passkey ini tidak akan bisa dipakai untuk masuk lagi.',
    'pk.unsupported':
      'Peramban ini tidak mendukung passkey. Buka Kotak di peramban terbaru untuk menambahkannya.',
  },
})

/**
 * `/app/passkeys`, the account's passkeys: each with its name, when it was added and last used,
 * rename and delete; and adding one made by this device (or a security key), named first.
 */

/** The page's styles, added when it first renders: they live in its chunk, not the first load. */
const CSS = `
.pk-page{height:100%;overflow:auto;padding:22px 28px 48px}
.pk-page>*{max-width:720px}
.pk-page h1{font-size:22px;margin:0 0 6px}
.pk-heading{font-size:16px;margin:26px 0 10px}
.pk-intro{margin:0 0 8px;color:var(--muted)}
.pk-list{list-style:none;margin:0;padding:0;background:var(--panel);border:1px solid var(--line);border-radius:10px}
.pk-item{display:flex;align-items:center;gap:12px;flex-wrap:wrap;padding:12px 16px;border-bottom:1px solid var(--line)}
.pk-item:last-child{border-bottom:0}
.pk-item .pk-text{flex:1;min-width:200px}
.pk-name{font-weight:600;overflow-wrap:anywhere}
.pk-meta{color:var(--muted);font-size:13px}
.pk-badge{display:inline-block;margin-left:8px;padding:1px 8px;border-radius:999px;background:var(--accent-soft);color:var(--accent);font-size:12px;font-weight:500}
.pk-actions{display:flex;gap:8px}
.pk-danger{color:var(--danger)}
.pk-form{display:flex;flex-direction:column;gap:6px;background:var(--panel);border:1px solid var(--line);border-radius:10px;padding:16px 18px}
.pk-form label{font-weight:600;font-size:13px}
.pk-form input{max-width:360px;width:100%}
.pk-form .pk-row{display:flex;gap:8px;flex-wrap:wrap;margin-top:6px}
.pk-rename{display:flex;gap:8px;flex-wrap:wrap;align-items:center;flex:1;min-width:200px}
.pk-rename input{flex:1;min-width:160px}
.pk-empty{padding:14px 16px;margin:0;color:var(--muted)}
@media (max-width:640px){.pk-page{padding:16px 14px 40px}.pk-actions{width:100%}}
`
let styled = false
const ensureStyles = () => {
  if (styled) return
  styled = true
  const el = document.createElement('style')
  el.textContent = CSS
  document.head.append(el)
}

const message = (e: unknown) =>
  e instanceof ApiError ? (e.fields.name ?? Passkeys.problem(e)) : Passkeys.problem(e)

const Item = ({
  pk,
  onChanged,
  onGone,
}: {
  pk: Passkeys.Passkey
  onChanged: (p: Passkeys.Passkey) => void
  onGone: (id: number) => void
}) => {
  const [editing, setEditing] = useState(false)
  const [name, setName] = useState(pk.name)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const inputId = `pk-name-${pk.id}`
  const save = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      const r = await api.patch('/v1/me/passkeys/{id}', { path: { id: pk.id }, body: { name } })
      onChanged(r.data)
      setEditing(false)
    } catch (err) {
      setError(message(err))
    } finally {
      setBusy(false)
    }
  }
  const remove = async () => {
    if (!confirm(t('pk.delete_confirm', { name: pk.name }))) return
    setBusy(true)
    try {
      await api.delete('/v1/me/passkeys/{id}', { path: { id: pk.id } })
      onGone(pk.id)
    } catch (err) {
      setError(message(err))
      setBusy(false)
    }
  }
  return (
    <li class="pk-item" data-testid="passkey" data-passkey-id={pk.id}>
      {editing ? (
        <form class="pk-rename" onSubmit={(e) => void save(e)}>
          <label class="sr-only" for={inputId}>
            {t('pk.name')}
          </label>
          <input
            id={inputId}
            type="text"
            required
            maxLength={80}
            value={name}
            aria-invalid={error ? true : undefined}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <button type="submit" class="primary" disabled={busy}>
            {t('pk.save')}
          </button>
          <button
            type="button"
            onClick={() => {
              setEditing(false)
              setName(pk.name)
              setError(null)
            }}
          >
            {t('pk.cancel')}
          </button>
        </form>
      ) : (
        <>
          <div class="pk-text">
            <div class="pk-name">
              {pk.name}
              {pk.backed_up && <span class="pk-badge">{t('pk.synced')}</span>}
            </div>
            <div class="pk-meta">
              {t('pk.added', { date: fullTime(pk.created_at) })} ·{' '}
              {pk.last_used_at ? t('pk.used', { date: fullTime(pk.last_used_at) }) : t('pk.never_used')}
            </div>
          </div>
          <div class="pk-actions">
            <button
              type="button"
              disabled={busy}
              onClick={() => setEditing(true)}
              aria-label={`${t('pk.rename')}: ${pk.name}`}
            >
              {t('pk.rename')}
            </button>
            <button
              type="button"
              class="pk-danger"
              disabled={busy}
              onClick={() => void remove()}
              aria-label={`${t('pk.delete')}: ${pk.name}`}
            >
              {t('pk.delete')}
            </button>
          </div>
        </>
      )}
      {error && (
        <p class="error small" role="alert">
          {error}
        </p>
      )}
    </li>
  )
}

const AddForm = ({ onAdded }: { onAdded: (p: Passkeys.Passkey) => void }) => {
  const [name, setName] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  if (!Passkeys.supported())
    return (
      <p class="pk-form" role="note">
        {t('pk.unsupported')}
      </p>
    )
  const add = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError(null)
    try {
      onAdded(await Passkeys.add(name.trim()))
      setName('')
    } catch (err) {
      setError(message(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <form class="pk-form" onSubmit={(e) => void add(e)} data-testid="passkey-add">
      <label for="pk-new-name">{t('pk.name')}</label>
      <input
        id="pk-new-name"
        type="text"
        required
        maxLength={80}
        value={name}
        aria-describedby="pk-new-help"
        aria-invalid={error ? true : undefined}
        onInput={(e) => setName(e.currentTarget.value)}
      />
      <p id="pk-new-help" class="muted small">
        {t('pk.name_help')}
      </p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="pk-row">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? t('pk.adding') : t('pk.add')}
        </button>
      </div>
    </form>
  )
}

/**
 * The account's passkeys and the form that adds one: this page's body, and the Passkeys section
 * of the profile (profile/ProfilePage.tsx), where its headings sit one level lower.
 */
export const PasskeysSection = ({ level = 2 }: { level?: 2 | 3 }) => {
  ensureStyles()
  use(locale)
  const [list, setList] = useState<readonly Passkeys.Passkey[] | null>(null)
  const [error, setError] = useState<string | null>(null)
  useEffect(() => {
    void api
      .get('/v1/me/passkeys')
      .then((r) => setList(r.data))
      .catch((e: unknown) => setError(e instanceof Error ? e.message : String(e)))
      .finally(meaningful)
  }, [])
  const H = level === 2 ? 'h2' : 'h3'
  return (
    <>
      <H class="pk-heading">{t('pk.list')}</H>
      {error && (
        <p class="error" role="alert">
          {t('error.generic', { message: error })}
        </p>
      )}
      {error ? null : list === null ? (
        <p class="muted">{t('list.loading')}</p>
      ) : list.length === 0 ? (
        <p class="pk-list pk-empty">{t('pk.none')}</p>
      ) : (
        <ul class="pk-list" aria-label={t('pk.list')}>
          {list.map((p) => (
            <Item
              key={p.id}
              pk={p}
              onChanged={(n) => setList((l) => (l ?? []).map((x) => (x.id === n.id ? n : x)))}
              onGone={(id) => setList((l) => (l ?? []).filter((x) => x.id !== id))}
            />
          ))}
        </ul>
      )}
      <H class="pk-heading">{t('pk.add')}</H>
      <AddForm onAdded={(p) => setList((l) => [...(l ?? []), p])} />
    </>
  )
}

export default function PasskeysPage() {
  ensureStyles()
  use(locale)
  return (
    <div class="pk-page" data-testid="passkeys-page">
      <h1>{t('pk.title')}</h1>
      <p class="pk-intro">{t('pk.intro')}</p>
      <PasskeysSection />
    </div>
  )
}
