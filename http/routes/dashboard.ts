import { Effect, Schema } from 'effect'
import * as Dashboard from '../../actors/admin/dashboard'
import { ok, type Route, route } from '../route'

/** Spec 1 §4.1 dashboard; which parts a caller sees is decided in actors/admin/dashboard.ts. */

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/dashboard',
    access: 'K',
    permission: 'dashboard.view',
    tag: 'Dashboard',
    summary:
      'Getting-started steps, quota usage, 14-day activity, recent activity, team summary; parts (comma-separated) picks some',
    query: Schema.Struct({
      parts: Schema.optional(
        Schema.String.pipe(
          Schema.pattern(new RegExp(`^(${Dashboard.parts.join('|')})(,(${Dashboard.parts.join('|')}))*$`)),
        ),
      ),
    }),
    response: Schema.Struct({
      getting_started: Schema.NullOr(Schema.Unknown),
      quota: Schema.NullOr(Schema.Unknown),
      activity: Schema.NullOr(Schema.Unknown),
      recent: Schema.NullOr(Schema.Unknown),
      teams: Schema.Unknown,
    }),
    handler: (req) =>
      Effect.map(
        Dashboard.summary(
          req,
          req.locale,
          req.query.parts ? (req.query.parts.split(',') as Dashboard.Part[]) : undefined,
        ),
        ({ data, hidden }) => ok(data, { hidden }),
      ),
  }),
]
