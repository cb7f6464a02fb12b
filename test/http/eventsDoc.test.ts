import * as fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { catalogue } from '../../actors/eventCatalogue'
import { EVENTS_DOC_FILE, eventsDocument } from '../../http/eventsDoc'

/**
 * docs/events.md tells API users the real-time events: it must be what http/eventsDoc.ts writes
 * from the event catalogue now, and so list exactly the catalogue's events.
 */
describe('the events document', () => {
  it('matches the event catalogue (regenerate with `npx tsx http/eventsDoc.ts`)', () => {
    const committed = fs.readFileSync(EVENTS_DOC_FILE, 'utf8')
    expect(committed === eventsDocument()).toBe(true)
    const listed = [
      ...committed.matchAll(/^## `(\w+):[^`]*`\n\n\| Event[^\n]*\n[^\n]*\n((?:\|[^\n]*\n?)*)/gm),
    ].flatMap(([, kind, rows]) => [...rows!.matchAll(/^\| `([^`]+)`/gm)].map(([, name]) => `${kind}:${name}`))
    const inCatalogue = Object.entries(catalogue).flatMap(([kind, events]) =>
      Object.keys(events).map((name) => `${kind}:${name}`),
    )
    expect(listed.sort()).toEqual(inCatalogue.sort())
    expect(inCatalogue).toContain('conv:message.created')
  })
})
