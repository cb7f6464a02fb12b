import { Effect, Schema } from 'effect'
import * as PlanRequests from '../../actors/admin/planRequests'
import { Email, Text } from '../../actors/fields'
import { Config } from '../../engine/config'
import { iso } from '../../engine/time'
import { created, ok, type Route, route } from '../route'

/** Spec 1 §4.5 public endpoints of administration: the Custom plan request and the demo page's live chat key. */

const Count = Schema.optional(Schema.NullOr(Schema.Number.pipe(Schema.int(), Schema.between(0, 100_000))))

export const routes: readonly Route[] = [
  route({
    method: 'POST',
    path: '/v1/plan-requests',
    access: 'P',
    tag: 'Public',
    summary: 'Ask for a Custom plan: name, email, message, optional company, phone, channels, agents',
    body: Schema.Struct({
      name: Text(2, 120),
      email: Email,
      message: Text(10, 5000),
      company: Schema.optional(Schema.String.pipe(Schema.maxLength(200))),
      phone: Schema.optional(
        Schema.String.pipe(
          Schema.filter((s) => s.trim() === '' || /^\+?[0-9 ()-]{6,25}$/.test(s.trim()), {
            jsonSchema: { pattern: '^\\+?[0-9 ()-]{6,25}$' },
          }),
        ),
      ),
      channels: Count,
      agents: Count,
    }),
    response: Schema.Struct({ id: Schema.Number, received_at: Schema.String }),
    handler: ({ body, ip, locale }) =>
      Effect.map(PlanRequests.submit(body, ip(), locale), (row) =>
        created({ id: row.id, received_at: iso(row.created_at)! }),
      ),
  }),
  route({
    method: 'GET',
    path: '/v1/public/demo-livechat',
    access: 'P',
    tag: 'Public',
    summary: 'Key of a sample live chat for a demo page; null when none is set up',
    response: Schema.Struct({ key: Schema.NullOr(Schema.String) }),
    handler: () => Effect.map(Config, (cfg) => ok({ key: cfg.demoLivechatKey ?? null })),
  }),
]
