import type { Duration } from 'effect'
import { everyLogged } from '../../engine/loop'
import * as Conversations from '../../store/conversations'

/**
 * The inbox's kept tab counts (migration 0114): every node folds the deltas that conversation
 * changes appended into the counts, so a count reads a few rows however busy the inbox was. A
 * read is right without a fold (it adds the deltas); folding keeps that read short.
 */
export const foldLoop = (every: Duration.DurationInput = '1 second') =>
  everyLogged('tab counts fold', every, Conversations.foldCounts())
