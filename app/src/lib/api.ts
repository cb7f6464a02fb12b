import type { paths } from '../api/schema'

/**
 * The app's only way to the server: the public API under /v1 with the session cookie (HttpOnly,
 * sent by the browser) and, on every change, the CSRF token the server left in `kotak_csrf`.
 * Paths, query parameters and bodies are checked against the generated OpenAPI types.
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Readonly<Record<string, string>> = {},
  ) {
    super(message)
  }
}

export interface Envelope<T> {
  readonly data: T
  readonly meta: Readonly<Record<string, unknown>>
}

type Method = 'get' | 'post' | 'patch' | 'put' | 'delete'
type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends Record<M, object> ? P : never
}[keyof paths]
type Op<P extends keyof paths, M extends Method> = paths[P] extends Record<M, infer O> ? O : never
type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? Q : never
type BodyOf<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never
type DataOf<O> = O extends { responses: { 200: { content: { 'application/json': { data: infer D } } } } }
  ? D
  : unknown

export interface Options<O> {
  readonly path?: Readonly<Record<string, string | number>>
  readonly query?: QueryOf<O>
  readonly body?: BodyOf<O> | FormData
  readonly signal?: AbortSignal
}

/** Called when the server says the session is gone (401), so the app shows the sign-in page. */
let onSignedOut: () => void = () => undefined
export const setSignedOutHandler = (f: () => void) => {
  onSignedOut = f
}

let locale = 'en'
export const setApiLocale = (l: string) => {
  locale = l
}

export const csrfToken = () => /(?:^|;\s*)kotak_csrf=([^;]*)/.exec(document.cookie)?.[1] ?? ''

const fill = (template: string, params: Readonly<Record<string, string | number>> = {}) =>
  template.replace(/\{(\w+)\}/g, (_, k: string) => encodeURIComponent(String(params[k])))

const queryString = (q: unknown) => {
  if (!q) return ''
  const sp = new URLSearchParams()
  for (const [k, v] of Object.entries(q as Record<string, unknown>)) {
    if (v !== undefined && v !== null && v !== '') sp.set(k, String(v))
  }
  const s = sp.toString()
  return s ? `?${s}` : ''
}

/** One request; resolves to the envelope, rejects with an ApiError carrying the stable `code`. */
export const request = async <P extends PathsWith<M>, M extends Method>(
  method: M,
  path: P,
  opts: Options<Op<P, M>> = {},
): Promise<Envelope<DataOf<Op<P, M>>>> => {
  const headers: Record<string, string> = { 'X-Locale': locale }
  if (method !== 'get') headers['X-CSRF-Token'] = csrfToken()
  let body: BodyInit | undefined
  if (opts.body instanceof FormData) body = opts.body
  else if (opts.body !== undefined) {
    headers['Content-Type'] = 'application/json'
    body = JSON.stringify(opts.body)
  }
  const res = await fetch(fill(path, opts.path) + queryString(opts.query), {
    method: method.toUpperCase(),
    headers,
    body,
    credentials: 'same-origin',
    signal: opts.signal,
  })
  const text = await res.text()
  const parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {}
  if (!res.ok) {
    const e = (parsed.error ?? {}) as { code?: string; message?: string; fields?: Record<string, string> }
    if (res.status === 401) onSignedOut()
    throw new ApiError(res.status, e.code ?? 'error', e.message ?? res.statusText, e.fields ?? {})
  }
  return {
    data: parsed.data as DataOf<Op<P, M>>,
    meta: (parsed.meta ?? {}) as Record<string, unknown>,
  }
}

export const api = {
  get: <P extends PathsWith<'get'>>(path: P, opts?: Options<Op<P, 'get'>>) => request('get', path, opts),
  post: <P extends PathsWith<'post'>>(path: P, opts?: Options<Op<P, 'post'>>) => request('post', path, opts),
  patch: <P extends PathsWith<'patch'>>(path: P, opts?: Options<Op<P, 'patch'>>) =>
    request('patch', path, opts),
  delete: <P extends PathsWith<'delete'>>(path: P, opts?: Options<Op<P, 'delete'>>) =>
    request('delete', path, opts),
}

/** Sign-out ends the session on the server (POST /auth/logout), then reloads to the sign-in page. */
export const signOut = async () => {
  await fetch('/auth/logout', { method: 'POST', headers: { 'X-CSRF-Token': csrfToken() } }).catch(() => null)
  location.href = '/app'
}
