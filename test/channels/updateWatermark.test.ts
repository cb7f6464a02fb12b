import { describe, expect, it } from 'vitest'
import { makeUpdateWatermark } from '../../connectors/api/webhooks'
import { CURSOR_LAG_SECONDS } from '../../store/channelApi'

/**
 * The `conversation.updated` tick compares only conversations written after its watermark
 * (connectors/api/webhooks `makeUpdateWatermark`): a version reading old enough that every write
 * before it has committed, adopted only after a tick that compared all it found.
 */
const LAG = CURSOR_LAG_SECONDS * 1000

describe('the conversation.updated watermark', () => {
  it('starts at 0 and moves to the newest reading older than the lag', () => {
    const w = makeUpdateWatermark()
    expect(w.since()).toBe(0)
    w.record(0, 100, true)
    w.record(1000, 150, true)
    expect(w.since()).toBe(0)
    w.record(LAG, 200, true)
    expect(w.since()).toBe(100)
    w.record(LAG + 1000, 260, true)
    expect(w.since()).toBe(150)
    // No reading between 1 s and LAG + 0.5 s old: it stays.
    w.record(LAG + 1500, 270, true)
    expect(w.since()).toBe(150)
  })

  it('does not move after a tick that left changes for the next (a full batch)', () => {
    const w = makeUpdateWatermark()
    w.record(0, 100, true)
    w.record(LAG + 10, 200, false)
    expect(w.since()).toBe(0)
    w.record(LAG + 20, 210, true)
    expect(w.since()).toBe(100)
  })

  it('keeps one lag of readings while behind, and adopts the newest old enough once caught up', () => {
    const w = makeUpdateWatermark()
    for (let t = 0; t <= 3 * LAG; t += 1000) w.record(t, t / 10, false)
    expect(w.since()).toBe(0)
    w.record(3 * LAG + 500, 9999, true)
    // The newest reading at least one lag old: taken at 2 × LAG (+ 500 ms is not yet a second later).
    expect(w.since()).toBe((2 * LAG) / 10)
  })

  it('never goes back', () => {
    const w = makeUpdateWatermark()
    w.record(0, 500, true)
    w.record(LAG, 600, true)
    expect(w.since()).toBe(500)
    // A reading lower than the watermark (a sequence reset, say) does not lower it.
    w.record(LAG + 1, 10, true)
    w.record(2 * LAG + 2, 20, true)
    expect(w.since()).toBe(500)
  })
})
