import * as F from '../support/fixtures'
import type { TestServer } from '../support/server'

/** Requests of the contacts tests, as JSON in and out. */
export interface Answer {
  readonly status: number
  readonly data: any
  readonly meta: any
  readonly error: any
}

export const call = async (
  s: TestServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<Answer> => {
  const res = await s.fetch(path, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await res.text()
  const json = text === '' ? {} : JSON.parse(text)
  return { status: res.status, data: json.data, meta: json.meta, error: json.error }
}

/** A caller: a session's or a key's headers. */
export type Who = Record<string, string>

export const session = (x: F.Session): Who => x.headers()
export const key = (k: string): Who => F.bearer(k)

export const api = (s: TestServer, who: Who) => ({
  get: (p: string) => call(s, 'GET', p, who),
  post: (p: string, b: unknown = {}) => call(s, 'POST', p, who, b),
  patch: (p: string, b: unknown) => call(s, 'PATCH', p, who, b),
  del: (p: string) => call(s, 'DELETE', p, who),
})

let n = 0
/** A valid Indonesian mobile number, different on every call. */
export const phone = () =>
  `+62812${String(Date.now() % 1_000_000).padStart(6, '0')}${String(n++ % 100).padStart(2, '0')}`
