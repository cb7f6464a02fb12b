import type { LayoutStage, StageKind, StageRow } from '../../store/pipelines'
import { COLORS as LABEL_COLORS } from '../contacts/labels'
import type { FieldMessage } from '../errors'
import { addMessages } from '../i18n'

/**
 * The stage layout rule (spec 2 §3, §8): exactly one New, 0 to 10 In progress, one Won, one Lost,
 * checked on every layout a workflow gets (creation and `PUT /pipelines/{id}/stages`), and where
 * the leads of a removed stage go. Pure functions of plain values.
 */
addMessages({
  'stages.layout': {
    en: 'needs exactly one New stage first, 0 to {max} In progress stages, then one Won and one Lost stage',
    id: 'harus tepat satu tahap Baru di awal, 0 sampai {max} tahap Berjalan, lalu satu tahap Menang dan satu tahap Kalah',
  },
  'stages.unknown': { en: 'is not a stage of this workflow', id: 'bukan tahap alur kerja ini' },
  'stages.kind_fixed': {
    en: 'an existing stage keeps its kind; add a new stage instead',
    id: 'tahap yang ada tidak dapat berganti jenis; tambahkan tahap baru',
  },
  'stages.repeated': { en: 'names the same stage twice', id: 'menyebut tahap yang sama dua kali' },
  'stages.color': { en: 'must be a colour of the palette', id: 'harus warna dari palet' },
})

export const MAX_PROGRESS = 10

/** The labels' 13-colour palette, answered in the settings and `meta.colors`. */
export const COLORS = LABEL_COLORS

/** Stages of a workflow created without `stages`. */
export const DEFAULT_STAGES: ReadonlyArray<{
  readonly kind: StageKind
  readonly label: string
  readonly color: string
  readonly probability: number
}> = [
  { kind: 'new', label: 'New', color: '#64748b', probability: 10 },
  { kind: 'progress', label: 'Qualified', color: '#3b82f6', probability: 25 },
  { kind: 'progress', label: 'Proposal', color: '#6366f1', probability: 50 },
  { kind: 'progress', label: 'Negotiation', color: '#a855f7', probability: 75 },
  { kind: 'won', label: 'Won', color: '#22c55e', probability: 100 },
  { kind: 'lost', label: 'Lost', color: '#ef4444', probability: 0 },
]

/** The probability a stage gets when none is sent. */
export const defaultProbability = (kind: StageKind) =>
  kind === 'won' ? 100 : kind === 'lost' ? 0 : kind === 'new' ? 10 : 50

/**
 * Problems of a layout, by field (`stages`, `stages.<i>.id`…): the kinds' counts and order
 * (New first, In progress next, Won and Lost last in either order), ids of this workflow, named
 * once, keeping their kind.
 */
export const checkLayout = (
  layout: readonly LayoutStage[],
  existing: readonly StageRow[],
): Record<string, FieldMessage> => {
  const problems: Record<string, FieldMessage> = {}
  const kinds = layout.map((s) => s.kind)
  const count = (k: StageKind) => kinds.filter((x) => x === k).length
  const progress = count('progress')
  const ordered =
    kinds[0] === 'new' &&
    kinds.slice(1, 1 + progress).every((k) => k === 'progress') &&
    kinds.slice(1 + progress).every((k) => k === 'won' || k === 'lost')
  if (count('new') !== 1 || count('won') !== 1 || count('lost') !== 1 || progress > MAX_PROGRESS || !ordered)
    problems.stages = { key: 'stages.layout', params: { max: MAX_PROGRESS } }
  const byId = new Map(existing.map((s) => [s.id, s]))
  const seen = new Set<number>()
  for (const [i, s] of layout.entries()) {
    if (!(COLORS as readonly string[]).includes(s.color))
      problems[`stages.${i}.color`] = { key: 'stages.color' }
    if (s.id === undefined) continue
    const before = byId.get(s.id)
    if (!before) problems[`stages.${i}.id`] = { key: 'stages.unknown' }
    else if (seen.has(s.id)) problems[`stages.${i}.id`] = { key: 'stages.repeated' }
    else if (before.kind !== s.kind) problems[`stages.${i}.kind`] = { key: 'stages.kind_fixed' }
    seen.add(s.id)
  }
  return problems
}

/**
 * Where the leads of a removed stage go (docs/decisions.md, "Pipeline"): a removed New, Won or
 * Lost stage hands its leads to the new layout's stage of that kind, so a lead's status never
 * changes by a layout edit; a removed In progress stage hands them to the nearest stage before it
 * in the old order that is kept (an In progress stage, else the New stage).
 */
export const destinationOf = (
  removed: StageRow,
  before: readonly StageRow[],
  after: ReadonlyArray<{ readonly id: number; readonly kind: StageKind }>,
): number => {
  const ofKind = (k: StageKind) => after.find((s) => s.kind === k)!.id
  if (removed.kind !== 'progress') return ofKind(removed.kind)
  const kept = new Set(after.map((s) => s.id))
  const earlier = before
    .filter((s) => s.position < removed.position && s.kind === 'progress' && kept.has(s.id))
    .sort((a, b) => b.position - a.position)[0]
  return earlier?.id ?? ofKind('new')
}
