import { type Duration, Effect } from 'effect'
import { everyLogged } from '../../engine/loop'
import * as Conversations from '../../store/conversations'

/**
 * The inbox's kept tab counts (migration 0114): every node folds the deltas that conversation
 * changes appended into the counts, so a count reads a few rows however busy the inbox was. A
 * read is right without a fold (it adds the deltas); folding keeps that read short.
 */

/**
 * Deltas a node folds before it vacuums their table: a fold deletes what it moves, and a count
 * read scans the dead rows until a vacuum (an import, or a burst of new conversations, left the
 * table hundreds of pages long for a minute or more). A small table's vacuum costs about a
 * millisecond; a busy inbox folding a hundred changes a second vacuums every ten seconds.
 */
export const VACUUM_AFTER = 1_000

export const foldLoop = (every: Duration.DurationInput = '1 second') => {
  let sinceVacuum = 0
  return everyLogged(
    'tab counts fold',
    every,
    Effect.gen(function* () {
      sinceVacuum += yield* Conversations.foldCounts()
      if (sinceVacuum < VACUUM_AFTER) return
      sinceVacuum = 0
      yield* Conversations.tidyCountDeltas()
    }),
  )
}
