import { Effect } from 'effect'
import * as Labels from '../../store/contactLabels'
import * as Contacts from '../../store/contacts'
import { ProblemSet } from '../errors'
import { invalid, missing } from './errors'
import { contactsSettings } from './events'

/**
 * Labels (spec 2 §4.4 `/labels`): colours from one fixed palette (answered in `meta.colors`),
 * names unique per workspace regardless of case, an order the admin sets, contact counts.
 */
export const COLORS = [
  '#ef4444',
  '#f97316',
  '#f59e0b',
  '#eab308',
  '#84cc16',
  '#22c55e',
  '#14b8a6',
  '#06b6d4',
  '#3b82f6',
  '#6366f1',
  '#a855f7',
  '#ec4899',
  '#64748b',
] as const

const checkName = (workspaceId: number, name: string, except: number | null, problems: ProblemSet) =>
  Effect.gen(function* () {
    if (yield* Labels.nameTaken(workspaceId, name, except)) problems.add('name', 'field.name_taken')
  })

const checkColor = (color: string, problems: ProblemSet) => {
  if (!(COLORS as readonly string[]).includes(color.toLowerCase())) problems.add('color', 'labels.color')
}

export const find = (workspaceId: number, id: number) =>
  Effect.flatMap(Contacts.labelById(workspaceId, id), (l) => (l ? Effect.succeed(l) : Effect.fail(missing())))

export const create = (workspaceId: number, input: { readonly name: string; readonly color?: string }) =>
  Effect.gen(function* () {
    const problems = new ProblemSet()
    const name = input.name.trim()
    const color = (input.color ?? COLORS[0]).toLowerCase()
    yield* checkName(workspaceId, name, null, problems)
    checkColor(color, problems)
    if (!problems.empty) return yield* Effect.fail(invalid(problems.fields))
    const row = yield* Labels.insert(workspaceId, name, color)
    // Taken between the check and the insert: the unique index decided.
    if (!row) return yield* Effect.fail(invalid({ name: { key: 'field.name_taken' } }))
    yield* contactsSettings(workspaceId, 'labels', { label_id: row.id })
    return row
  })

export const change = (
  workspaceId: number,
  id: number,
  input: { readonly name?: string; readonly color?: string; readonly position?: number },
) =>
  Effect.gen(function* () {
    const l = yield* find(workspaceId, id)
    const problems = new ProblemSet()
    const name = input.name?.trim() ?? l.name
    const color = input.color?.toLowerCase() ?? l.color
    if (input.name !== undefined) yield* checkName(workspaceId, name, id, problems)
    if (input.color !== undefined) checkColor(color, problems)
    if (!problems.empty) return yield* Effect.fail(invalid(problems.fields))
    const done = yield* Labels.change(id, {
      ...(input.name !== undefined ? { name } : {}),
      ...(input.color !== undefined ? { color } : {}),
    })
    if (!done) return yield* Effect.fail(invalid({ name: { key: 'field.name_taken' } }))
    if (input.position !== undefined) yield* Labels.move(workspaceId, id, input.position)
    yield* contactsSettings(workspaceId, 'labels', { label_id: id })
    return yield* find(workspaceId, id)
  })

/** Deletes the label; every contact loses it (contact_labels cascades). */
export const remove = (workspaceId: number, id: number) =>
  Effect.gen(function* () {
    yield* find(workspaceId, id)
    yield* Labels.remove(id)
    yield* contactsSettings(workspaceId, 'labels', { label_id: id, deleted: true })
  })
