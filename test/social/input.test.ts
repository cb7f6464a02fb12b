import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { body, get, key, type SocialTestServer, startSocialServer, workspace } from './support'

/**
 * The social service decodes its queries with the same decoder as the messaging service
 * (http/validation.ts), so NUL and unpaired surrogates are refused there too (issue 18).
 */
let s: SocialTestServer
beforeAll(async () => {
  s = await startSocialServer()
})
afterAll(() => s?.stop())

describe('unstorable text in social queries', () => {
  it('answers 422 with the parameter, never 500', async () => {
    const k = await key(s, await workspace(s))
    const r = await get(s, k, '/api/v1/conversations?status=open%00&type=%00')
    expect(r.status).toBe(422)
    expect(r.body.error.code).toBe('validation_error')
    expect(Object.keys(r.body.error.fields).sort()).toEqual(['status', 'type'])
    const res = await s.fetch('/api/v1/tickets?status=%00', { headers: { authorization: `Bearer ${k}` } })
    expect(res.status).toBe(422)
    expect((await body(res)).error.fields).toHaveProperty('status')
  })
})
