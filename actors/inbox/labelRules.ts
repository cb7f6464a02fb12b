import { SqlClient } from '@effect/sql'
import { Effect, Schema } from 'effect'
import { currentTime } from '../../engine/clock'
import * as Assignees from '../../store/assignees'
import * as Channels from '../../store/channels'
import * as Contacts from '../../store/contacts'
import * as LabelRules from '../../store/labelRules'
import { isPaidActive } from '../../store/plans'
import type { WorkspaceRow } from '../../store/workspaces'
import { createdReply, reply } from '../answer'
import { ApiError, type FieldMessage, invalid, notFound } from '../errors'
import { Id, IdFromString, Text } from '../fields'
import { addMessages } from '../i18n'
import type { Ctx } from './conversations'

/**
 * Spec 2 §4.2 messaging-app label rules (Pro; Free gets 402): a business label applied on the
 * phone runs `contact_label`, `assign_team` or `solve` (actors/inbox/ConversationActor `applyLabelRules`).
 */
addMessages({
  'field.msgapp_channel': {
    en: 'must be a messaging-app number of this workspace',
    id: 'harus nomor aplikasi pesan di workspace ini',
  },
  'field.rule_taken': {
    en: 'this number already has a rule with this label and action',
    id: 'nomor ini sudah memiliki aturan dengan label dan aksi ini',
  },
})

export const IdParam = Schema.Struct({ id: IdFromString })
export const Action = Schema.Literal('contact_label', 'assign_team', 'solve')

export const RuleSchema = Schema.Struct({
  id: Schema.Number,
  label_name: Schema.String,
  channel: Schema.Struct({ id: Schema.Number, name: Schema.String }),
  action: Action,
  value: Schema.NullOr(Schema.Number),
  value_label: Schema.NullOr(Schema.String),
  active: Schema.Boolean,
})

export const present = (r: LabelRules.RuleView): typeof RuleSchema.Type => ({
  id: r.id,
  label_name: r.label_name,
  channel: { id: r.channel_id, name: r.ch_name },
  action: r.action,
  value: r.value,
  value_label: r.value_label,
  active: r.active,
})

/** Label rules are a Pro feature: 402 on Free (and lapsed) workspaces, for reads too. */
export const requirePro = (workspace: WorkspaceRow) =>
  Effect.flatMap(currentTime, (now) =>
    isPaidActive(workspace, now) ? Effect.void : Effect.fail(new ApiError({ code: 'plan_required' })),
  )

/** Checks a rule against the workspace's numbers, labels and teams; every problem at once. */
export const checked = (workspace: WorkspaceRow, input: LabelRules.RuleInput, except: number | null) =>
  Effect.gen(function* () {
    const problems: Record<string, FieldMessage> = {}
    const channel = yield* Channels.byId(input.channelId)
    if (!channel || channel.workspace_id !== workspace.id || channel.type !== 'msgapp') {
      problems.channel_id = { key: 'field.msgapp_channel' }
    }
    if (input.action === 'contact_label') {
      if (input.value === null) problems.value = { key: 'field.required' }
      else if (!(yield* Contacts.labelById(workspace.id, input.value)))
        problems.value = { key: 'field.unknown' }
    } else if (input.action === 'assign_team') {
      if (input.value === null) problems.value = { key: 'field.required' }
      else {
        const team = yield* Assignees.teamById(workspace.id, input.value)
        if (team?.type !== 'frontline') problems.value = { key: 'field.frontline_team' }
      }
    } else if (input.value !== null) problems.value = { key: 'field.unexpected' }
    if (Object.keys(problems).length === 0 && (yield* LabelRules.taken(input, except))) {
      problems.label_name = { key: 'field.rule_taken' }
    }
    return Object.keys(problems).length > 0 ? yield* Effect.fail(invalid(problems)) : input
  })

export const CreateBody = Schema.Struct({
  channel_id: Id,
  label_name: Text(1, 100),
  action: Action,
  value: Schema.optional(Schema.NullOr(Id)),
  active: Schema.optional(Schema.Boolean),
})

export const UpdateBody = Schema.Struct({
  channel_id: Schema.optional(Id),
  label_name: Schema.optional(Text(1, 100)),
  action: Schema.optional(Action),
  value: Schema.optional(Schema.NullOr(Id)),
  active: Schema.optional(Schema.Boolean),
})

export const list = (ctx: Ctx) => {
  const { workspace } = ctx
  return Effect.gen(function* () {
    yield* requirePro(workspace)
    return reply((yield* LabelRules.list(workspace.id)).map(present))
  })
}

export const create = (ctx: Ctx, body: typeof CreateBody.Type) => {
  const { workspace } = ctx
  return Effect.gen(function* () {
    yield* requirePro(workspace)
    const input = yield* checked(
      workspace,
      {
        channelId: body.channel_id,
        labelName: body.label_name.trim(),
        action: body.action,
        value: body.value ?? null,
        active: body.active ?? true,
      },
      null,
    )
    const id = yield* LabelRules.insert(workspace.id, input)
    // `checked` saw the key free; a rule made meanwhile took it (the unique index decides).
    if (id === null) return yield* Effect.fail(invalid({ label_name: { key: 'field.rule_taken' } }))
    return createdReply(present((yield* LabelRules.byId(workspace.id, id))!))
  })
}

/** Under the rule's row lock (`lockById`): a change made meanwhile is kept, not overwritten. */
export const update = (ctx: Ctx, params: typeof IdParam.Type, body: typeof UpdateBody.Type) => {
  const { workspace } = ctx
  return Effect.gen(function* () {
    yield* requirePro(workspace)
    const sql = yield* SqlClient.SqlClient
    const id = yield* sql.withTransaction(change(workspace, params.id, body))
    return reply(present((yield* LabelRules.byId(workspace.id, id))!))
  })
}

const change = (workspace: WorkspaceRow, id: number, body: typeof UpdateBody.Type) =>
  Effect.gen(function* () {
    const r = yield* LabelRules.lockById(workspace.id, id)
    if (!r) return yield* Effect.fail(notFound())
    const action = body.action ?? r.action
    const input = yield* checked(
      workspace,
      {
        channelId: body.channel_id ?? r.channel_id,
        labelName: body.label_name?.trim() ?? r.label_name,
        action,
        // Switching to `solve` drops the value; other switches need one sent.
        value:
          body.value !== undefined
            ? body.value
            : action === 'solve'
              ? null
              : action === r.action
                ? r.value
                : null,
        active: body.active ?? r.active,
      },
      r.id,
    )
    if (!(yield* LabelRules.change(r.id, input)))
      return yield* Effect.fail(invalid({ label_name: { key: 'field.rule_taken' } }))
    return r.id
  })

export const remove = (ctx: Ctx, params: typeof IdParam.Type) => {
  const { workspace } = ctx
  return Effect.gen(function* () {
    yield* requirePro(workspace)
    const r = yield* LabelRules.byId(workspace.id, params.id)
    if (!r) return yield* Effect.fail(notFound())
    yield* LabelRules.remove(r.id)
    return reply({ id: r.id, deleted: true })
  })
}
