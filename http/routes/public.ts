import { Effect, Schema } from 'effect'
import { LimitsSchema } from '../../actors/admin/presenters'
import type { Locale } from '../../actors/i18n'
import { Config } from '../../engine/config'
import { type Plan, planLimits, planPrices, plans } from '../../store/plans'
import { ok, type Route, route } from '../route'

/** Spec 1 §4.5. Figures are ours where the spec leaves them open (docs/decisions.md). */

const names: Record<Plan, Record<Locale, { name: string; description: string }>> = {
  free: {
    en: { name: 'Free', description: 'One channel and a small team, to get started.' },
    id: { name: 'Gratis', description: 'Satu kanal dan tim kecil, untuk memulai.' },
  },
  pro: {
    en: { name: 'Pro', description: 'More channels and agents, AI, API access and reports.' },
    id: { name: 'Pro', description: 'Lebih banyak kanal dan agen, AI, akses API dan laporan.' },
  },
  custom: {
    en: { name: 'Custom', description: 'Limits and terms agreed in a contract.' },
    id: { name: 'Custom', description: 'Batas dan ketentuan sesuai kontrak.' },
  },
}

const retention = {
  en: 'Messages of Free workspaces are kept for 90 days, Pro for 2 years, Custom as agreed; data of a deleted workspace is erased after 30 days.',
  id: 'Pesan workspace Gratis disimpan 90 hari, Pro 2 tahun, Custom sesuai kontrak; data workspace yang dihapus dimusnahkan setelah 30 hari.',
}

const ConfigSchema = Schema.Struct({
  currency: Schema.String,
  plans: Schema.Array(
    Schema.Struct({
      key: Schema.Literal('free', 'pro', 'custom'),
      name: Schema.String,
      description: Schema.String,
      price_monthly: Schema.NullOr(Schema.Number),
      limits: LimitsSchema,
    }),
  ),
  tax: Schema.Struct({ name: Schema.String, rate_percent: Schema.Number, included_in_price: Schema.Boolean }),
  retention: Schema.Struct({
    messages_days: Schema.Struct({ free: Schema.Number, pro: Schema.Number, custom: Schema.Number }),
    deleted_workspace_days: Schema.Number,
    description: Schema.String,
  }),
  locale: Schema.Literal('en', 'id'),
  /**
   * How people sign in to the app: the OpenID Connect provider when configured; one-time links by
   * e-mail (`POST /auth/link`) when the server can send mail; else links from the operator CLI.
   */
  sign_in: Schema.Struct({
    oidc: Schema.Boolean,
    login_path: Schema.NullOr(Schema.String),
    email: Schema.Boolean,
  }),
})

export const routes: readonly Route[] = [
  route({
    method: 'GET',
    path: '/v1/public/config',
    access: 'P',
    tag: 'Public',
    summary: 'Plan prices and quotas, tax and retention rules; follows X-Locale',
    response: ConfigSchema,
    handler: ({ locale }) =>
      Effect.map(Config, (cfg) =>
        ok({
          currency: 'IDR',
          plans: plans.map((key) => ({
            key,
            name: names[key][locale].name,
            description: names[key][locale].description,
            price_monthly: planPrices[key],
            limits: planLimits[key],
          })),
          tax: { name: 'PPN', rate_percent: 11, included_in_price: false },
          retention: {
            messages_days: { free: 90, pro: 730, custom: 0 },
            deleted_workspace_days: 30,
            description: retention[locale],
          },
          locale,
          sign_in: {
            oidc: cfg.oidc !== undefined,
            login_path: cfg.oidc ? '/auth/login' : null,
            email: cfg.smtpUrl !== undefined,
          },
        } satisfies typeof ConfigSchema.Type),
      ),
  }),
]
