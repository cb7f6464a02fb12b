import * as fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { generate, SCHEMA_FILE } from '../../app/scripts/schema'

/**
 * The app's request and response types come from the server's OpenAPI document: the committed
 * app/src/api/schema.d.ts must be what app/scripts/schema.ts generates from the route table now.
 */
describe("the app's API types", () => {
  it('match the OpenAPI document (regenerate with `npx tsx app/scripts/schema.ts`)', async () => {
    const fresh = await generate()
    expect(fresh).toContain('"/v1/interactions": {')
    expect(fs.readFileSync(SCHEMA_FILE, 'utf8') === fresh).toBe(true)
  }, 60_000)
})
