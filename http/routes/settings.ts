import { Effect, Schema } from 'effect'
import * as GeneralSettings from '../../actors/admin/settings'
import { TimeZone } from '../../actors/fields'
import * as Settings from '../../store/settings'
import { ok, type Route, route } from '../route'

/** Spec 1 §4.1 General settings; the rules are in actors/admin/settings.ts. */

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/settings',
    access: 'K',
    permission: 'settings.workspace',
    tag: 'Settings',
    summary: 'General settings: time zone, reply target, business hours, open now; `meta.choices`',
    response: GeneralSettings.SettingsSchema,
    handler: ({ workspace }) =>
      Effect.map(GeneralSettings.get(workspace.id), (s) => ok(s, { choices: GeneralSettings.choices() })),
  }),
  route({
    method: 'PATCH',
    path: '/v1/settings',
    access: 'A',
    permission: 'settings.workspace',
    tag: 'Settings',
    summary: 'Change the time zone, reply target or business hours (all plans)',
    body: Schema.Struct({
      timezone: Schema.optional(TimeZone.pipe(Schema.minLength(1))),
      response_target_minutes: Schema.optional(Schema.Literal(...Settings.RESPONSE_TARGETS)),
      response_warn_percent: Schema.optional(Schema.Literal(...Settings.WARN_PERCENTS)),
      business_hours: Schema.optional(GeneralSettings.BusinessHoursSchema),
    }),
    response: GeneralSettings.SettingsSchema,
    handler: (req) =>
      Effect.map(GeneralSettings.update(req, req.body), (s) => ok(s, { choices: GeneralSettings.choices() })),
  }),
]
