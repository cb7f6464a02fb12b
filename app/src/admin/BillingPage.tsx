import { useEffect, useState } from 'preact/hooks'
import { api, can, failFields, got, me, useKitTr, useLocale, useWorkspaceEvents } from '../kit'
import { CheckField, Notice, Panel, QuotaMeter, SelectField, TextAreaField, TextField, when } from '../kit/ui'
import { here } from '../lib/router'
import { load as reloadSession } from '../lib/session'
import { use } from '../lib/state'
import { SettingsPage } from '../settings/frame'
import { Failure } from './common'
import { day, money, type TextKey, useTr } from './kit'
import { ensureStyles } from './styles'

type PlanKey = 'free' | 'pro' | 'custom'

interface Quota {
  readonly used: number
  readonly limit: number
  readonly resets_at?: string | null
  readonly suspended?: number
}

interface Invoice {
  readonly number: string
  readonly status: 'open' | 'paid' | 'void'
  readonly months: number
  readonly currency: string
  readonly subtotal: number
  readonly tax: number
  readonly tax_percent: number
  readonly total: number
  readonly profile: Readonly<Record<string, string>>
  readonly created_at: string
  readonly due_at: string
  readonly paid_at: string | null
  readonly period_start: string | null
  readonly period_end: string | null
}

interface Attempt {
  readonly id: number
  readonly provider: string
  readonly status: 'pending' | 'paid' | 'failed' | 'expired'
  readonly amount: number
  readonly created_at: string
  readonly expires_at: string
}

interface Plan {
  readonly key: PlanKey
  readonly pro_until: string | null
  readonly in_grace: boolean
  readonly frozen: boolean
  readonly limits: Readonly<Record<string, number | boolean>>
}

interface Overview {
  readonly plan: Plan
  readonly usage: Readonly<Record<UsageKey, Quota>>
  readonly invoices: readonly Invoice[]
  readonly profile: Readonly<Record<string, string>>
  readonly prices: {
    readonly currency: string
    readonly tax_percent: number
    readonly pro_monthly: number
    readonly upgrade: readonly { readonly months: number; readonly total: number }[]
  }
  readonly downgrade: {
    readonly limits: { readonly channels: number; readonly users: number }
    readonly choice: {
      readonly channel_ids: readonly number[]
      readonly member_ids: readonly number[]
    } | null
    readonly channels: readonly { readonly id: number; readonly name: string }[]
    readonly members: readonly { readonly id: number; readonly name: string; readonly email: string }[]
  }
}

const USAGE = [
  'channels',
  'users',
  'replies_per_day',
  'tickets_per_month',
  'leads_per_month',
  'ai_per_month',
] as const
type UsageKey = (typeof USAGE)[number]

/** Sends the browser to the payment provider's checkout. */
const openCheckout = (url: string | null) => {
  if (url) location.assign(url)
}

const FrozenNotice = () => {
  const tr = useTr()
  return (
    <section class="k-panel adm-frozen" aria-labelledby="adm-frozen" data-testid="frozen" role="alert">
      <h2 id="adm-frozen">{tr('adm.bill.frozen_title')}</h2>
      <p>{tr('adm.bill.frozen')}</p>
    </section>
  )
}

const PlanPanel = ({ plan }: { plan: Plan }) => {
  const tr = useTr()
  const locale = useLocale()
  const graceEnd = plan.pro_until ? new Date(new Date(plan.pro_until).getTime() + 7 * 86_400_000) : null
  return (
    <Panel title={tr('adm.bill.current')} id="adm-plan">
      <dl class="k-dl">
        <dt>{tr('adm.bill.plan')}</dt>
        <dd>
          <strong data-testid="plan-name">{tr(`adm.bill.plan.${plan.key}`)}</strong>
        </dd>
        {plan.key !== 'free' ? (
          <>
            <dt>{tr('adm.bill.until')}</dt>
            <dd data-testid="plan-until">
              {plan.pro_until ? day(plan.pro_until, locale) : tr('adm.bill.no_end')}
            </dd>
          </>
        ) : null}
      </dl>
      {plan.key === 'free' ? <p class="k-muted">{tr('adm.bill.free_note')}</p> : null}
      {plan.key === 'custom' && !plan.frozen ? <p class="k-muted">{tr('adm.bill.custom_note')}</p> : null}
      {plan.in_grace && plan.pro_until && graceEnd ? (
        <div class="k-row">
          <Notice kind="bad">
            {tr('adm.bill.grace', {
              date: day(plan.pro_until, locale),
              end: day(graceEnd.toISOString(), locale),
            })}
          </Notice>
        </div>
      ) : null}
    </Panel>
  )
}

const Meter = ({ name, q, excluded }: { name: UsageKey; q: Quota; excluded: boolean }) => {
  const tr = useTr()
  const locale = useLocale()
  const n = (x: number) => x.toLocaleString(locale === 'id' ? 'id-ID' : 'en-GB')
  return (
    <QuotaMeter
      item={{ 'data-usage': name }}
      label={<span id={`adm-use-${name}`}>{tr(`adm.bill.use.${name}`)}</span>}
      figure={
        <strong data-testid={`usage-${name}`}>
          {excluded
            ? tr('adm.bill.not_included')
            : q.limit > 0
              ? tr('adm.bill.of', { used: n(q.used), limit: n(q.limit) })
              : tr('adm.bill.unlimited', { used: n(q.used) })}
        </strong>
      }
      used={q.used}
      limit={q.limit}
      notes={
        <>
          {q.suspended ? <small class="k-error">{tr('adm.bill.suspended', { n: q.suspended })}</small> : null}
          {q.resets_at && q.limit > 0 && !excluded ? (
            <small class="k-hint">{tr('adm.bill.resets', { when: when(q.resets_at, locale) })}</small>
          ) : null}
        </>
      }
    />
  )
}

const UsagePanel = ({ usage, plan }: { usage: Overview['usage']; plan: Plan }) => {
  const tr = useTr()
  // A limit of 0 is no limit, except AI on a plan without AI: none is included there.
  const noAi = plan.limits.ai === false
  return (
    <Panel title={tr('adm.bill.usage')} id="adm-usage">
      <ul class="adm-meters">
        {USAGE.map((k) =>
          usage[k] ? <Meter key={k} name={k} q={usage[k]} excluded={k === 'ai_per_month' && noAi} /> : null,
        )}
      </ul>
    </Panel>
  )
}

const UpgradePanel = ({ b }: { b: Overview }) => {
  const tr = useTr()
  const locale = useLocale()
  const [months, setMonths] = useState('1')
  const [busy, setBusy] = useState(false)
  const [fail, setFail] = useState<unknown>(null)
  const m = (x: number) => money(x, b.prices.currency, locale)
  const go = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setFail(null)
    try {
      const r = await got<{ checkout_url: string | null }>(
        api.post('/v1/billing/upgrade', { body: { months: Number(months) as 1 | 3 | 6 | 12 } }),
      )
      openCheckout(r.data.checkout_url)
    } catch (err) {
      setFail(err)
      setBusy(false)
    }
  }
  const title = b.plan.key === 'pro' ? tr('adm.bill.extend') : tr('adm.bill.upgrade')
  return (
    <Panel title={title} id="adm-upgrade">
      <form class="k-form" noValidate onSubmit={go}>
        <p>{tr('adm.bill.upgrade_text', { price: m(b.prices.pro_monthly), tax: b.prices.tax_percent })}</p>
        <SelectField
          label={tr('adm.bill.months')}
          name="months"
          value={months}
          options={b.prices.upgrade.map(
            (p) =>
              [
                String(p.months),
                p.months === 1
                  ? tr('adm.bill.months_opt1', { total: m(p.total), tax: b.prices.tax_percent })
                  : tr('adm.bill.months_opt', {
                      months: p.months,
                      total: m(p.total),
                      tax: b.prices.tax_percent,
                    }),
              ] as const,
          )}
          onValue={setMonths}
          error={failFields(fail).months}
        />
        <Failure error={fail} />
        <button class="k-btn k-primary" type="submit" disabled={busy}>
          {busy ? tr('adm.bill.going') : tr('adm.bill.go_pay')}
        </button>
      </form>
    </Panel>
  )
}

const statusTone = { open: 'wait', paid: 'ok', void: 'bad' } as const

/** One invoice with its attempts; `version` (the page's loads) fetches it again after a change. */
const InvoiceDetail = ({ number, version }: { number: string; version: number }) => {
  const tr = useTr()
  const locale = useLocale()
  const [inv, setInv] = useState<(Invoice & { attempts: readonly Attempt[] }) | null>(null)
  const [fail, setFail] = useState<unknown>(null)
  useEffect(() => {
    got<Invoice & { attempts: readonly Attempt[] }>(
      api.get('/v1/billing/invoices/{number}', { path: { number } }),
    ).then((r) => setInv(r.data), setFail)
  }, [number, version])
  if (fail) return <Failure error={fail} />
  if (!inv) return null
  const m = (x: number) => money(x, inv.currency, locale)
  const billedTo = Object.values(inv.profile).filter(Boolean).join(', ')
  return (
    <div class="adm-invoice" data-testid="invoice-detail">
      <h3>{tr('adm.bill.invoice', { number: inv.number })}</h3>
      <dl class="k-dl">
        <dt>{tr('adm.bill.subtotal')}</dt>
        <dd>{m(inv.subtotal)}</dd>
        <dt>{tr('adm.bill.tax', { percent: inv.tax_percent })}</dt>
        <dd>{m(inv.tax)}</dd>
        <dt>{tr('adm.bill.col.total')}</dt>
        <dd>
          <strong>{m(inv.total)}</strong>
        </dd>
        <dt>{tr('adm.bill.due')}</dt>
        <dd>{day(inv.due_at, locale)}</dd>
        {inv.paid_at ? (
          <>
            <dt>{tr('adm.bill.paid_at')}</dt>
            <dd>{when(inv.paid_at, locale)}</dd>
          </>
        ) : null}
        {inv.period_start && inv.period_end ? (
          <>
            <dt>{tr('adm.bill.period')}</dt>
            <dd>
              {day(inv.period_start, locale)} – {day(inv.period_end, locale)}
            </dd>
          </>
        ) : null}
        {billedTo ? (
          <>
            <dt>{tr('adm.bill.billed_to')}</dt>
            <dd>{billedTo}</dd>
          </>
        ) : null}
      </dl>
      <h3>{tr('adm.bill.attempts')}</h3>
      {inv.attempts.length === 0 ? (
        <p class="k-muted">{tr('adm.bill.no_attempts')}</p>
      ) : (
        <ul data-testid="invoice-attempts">
          {inv.attempts.map((a) => (
            <li key={a.id} data-status={a.status}>
              {tr('adm.bill.attempt', {
                when: when(a.created_at, locale),
                provider: a.provider,
                status: tr(`adm.bill.attempt.${a.status}`),
                amount: m(a.amount),
              })}
            </li>
          ))}
        </ul>
      )}
    </div>
  )
}

const InvoicesPanel = ({ invoices, version }: { invoices: readonly Invoice[]; version: number }) => {
  const tr = useTr()
  const locale = useLocale()
  const [open, setOpen] = useState<string | null>(null)
  const [fail, setFail] = useState<unknown>(null)
  const [busy, setBusy] = useState<string | null>(null)
  const pay = async (number: string) => {
    setBusy(number)
    setFail(null)
    try {
      const r = await got<{ checkout_url: string | null }>(
        api.post('/v1/billing/invoices/{number}/pay', { path: { number } }),
      )
      openCheckout(r.data.checkout_url)
    } catch (err) {
      setFail(err)
      setBusy(null)
    }
  }
  return (
    <Panel title={tr('adm.bill.invoices')} id="adm-invoices">
      <Failure error={fail} />
      {invoices.length === 0 ? (
        <p class="k-muted">{tr('adm.bill.no_invoices')}</p>
      ) : (
        <div class="k-table-wrap">
          <table class="k-table" aria-labelledby="adm-invoices">
            <thead>
              <tr>
                <th scope="col">{tr('adm.bill.col.number')}</th>
                <th scope="col">{tr('adm.bill.col.date')}</th>
                <th scope="col">{tr('adm.bill.col.what')}</th>
                <th scope="col">{tr('adm.bill.col.total')}</th>
                <th scope="col">{tr('adm.bill.col.status')}</th>
                <th scope="col">{tr('adm.bill.col.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {invoices.map((i) => (
                <tr key={i.number} data-invoice={i.number}>
                  <td>
                    <code>{i.number}</code>
                  </td>
                  <td>{day(i.created_at, locale)}</td>
                  <td>
                    {i.months === 1
                      ? tr('adm.bill.pro_month')
                      : tr('adm.bill.pro_months', { months: i.months })}
                  </td>
                  <td>{money(i.total, i.currency, locale)}</td>
                  <td>
                    <span class={`k-badge k-${statusTone[i.status]}`} data-status={i.status}>
                      {tr(`adm.bill.status.${i.status}`)}
                    </span>
                  </td>
                  <td>
                    <div class="k-row">
                      <button
                        type="button"
                        class="k-btn"
                        aria-expanded={open === i.number}
                        onClick={() => setOpen(open === i.number ? null : i.number)}
                      >
                        {open === i.number ? tr('adm.bill.hide') : tr('adm.bill.details')}
                        <span class="sr-only"> {i.number}</span>
                      </button>
                      {i.status === 'open' ? (
                        <button
                          type="button"
                          class="k-btn k-primary"
                          disabled={busy === i.number}
                          onClick={() => pay(i.number)}
                        >
                          {tr('adm.bill.pay')}
                          <span class="sr-only"> {i.number}</span>
                        </button>
                      ) : null}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {open ? <InvoiceDetail number={open} version={version} /> : null}
    </Panel>
  )
}

const PROFILE = ['name', 'email', 'company', 'tax_id', 'phone'] as const

const ProfileForm = ({ profile }: { profile: Overview['profile'] }) => {
  const tr = useTr()
  const kit = useKitTr()
  const initial = () =>
    Object.fromEntries([...PROFILE, 'address'].map((k) => [k, profile[k] ?? ''])) as Record<string, string>
  const [form, setForm] = useState(initial)
  const [fail, setFail] = useState<unknown>(null)
  const [saved, setSaved] = useState(false)
  const [busy, setBusy] = useState(false)
  const fields = failFields(fail)
  const save = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setFail(null)
    setSaved(false)
    try {
      const r = await got<Record<string, string>>(api.patch('/v1/billing/profile', { body: form }))
      setForm(Object.fromEntries([...PROFILE, 'address'].map((k) => [k, r.data[k] ?? ''])))
      setSaved(true)
    } catch (err) {
      setFail(err)
    } finally {
      setBusy(false)
    }
  }
  const set = (k: string) => (v: string) => setForm((f) => ({ ...f, [k]: v }))
  return (
    <Panel title={tr('adm.bill.profile')} id="adm-profile">
      <form class="k-form" noValidate onSubmit={save} data-testid="billing-profile">
        <p class="k-muted">{tr('adm.bill.profile_hint')}</p>
        <div class="adm-two">
          {PROFILE.map((k) => (
            <TextField
              key={k}
              label={tr(`adm.bill.p.${k}` as TextKey)}
              name={k}
              type={k === 'email' ? 'email' : k === 'phone' ? 'tel' : 'text'}
              value={form[k] ?? ''}
              onValue={set(k)}
              error={fields[k]}
            />
          ))}
        </div>
        <TextAreaField
          label={tr('adm.bill.p.address')}
          name="address"
          rows={3}
          maxLength={500}
          value={form.address ?? ''}
          onValue={set('address')}
          error={fields.address}
        />
        <Failure error={fail} />
        {saved ? <Notice kind="ok">{kit('k.saved')}</Notice> : null}
        <button class="k-btn k-primary" type="submit" disabled={busy}>
          {tr('adm.bill.p.save')}
        </button>
      </form>
    </Panel>
  )
}

/** The request's short fields: name, input type, required. */
const REQUEST = [
  ['name', 'text', true],
  ['email', 'email', true],
  ['company', 'text', false],
  ['phone', 'tel', false],
  ['channels', 'number', false],
  ['agents', 'number', false],
] as const

const CustomRequest = () => {
  const tr = useTr()
  const who = me.get()
  const [form, setForm] = useState({
    name: who ? who.user.name : '',
    email: who ? who.user.email : '',
    company: '',
    phone: '',
    channels: '',
    agents: '',
    message: '',
  })
  const [fail, setFail] = useState<unknown>(null)
  const [sent, setSent] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const fields = failFields(fail)
  const count = (s: string) => (s.trim() === '' ? null : Number(s))
  const send = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setFail(null)
    try {
      await api.post('/v1/plan-requests', {
        body: {
          name: form.name,
          email: form.email,
          message: form.message,
          company: form.company,
          phone: form.phone,
          channels: count(form.channels),
          agents: count(form.agents),
        },
      })
      setSent(form.email)
      setForm((f) => ({ ...f, message: '' }))
    } catch (err) {
      setFail(err)
    } finally {
      setBusy(false)
    }
  }
  const set = (k: keyof typeof form) => (v: string) => setForm((f) => ({ ...f, [k]: v }))
  return (
    <Panel title={tr('adm.bill.custom')} id="adm-custom">
      <form class="k-form" noValidate onSubmit={send} data-testid="custom-request">
        <p class="k-muted">{tr('adm.bill.custom_text')}</p>
        <div class="adm-two">
          {REQUEST.map(([k, type, required]) => (
            <TextField
              key={k}
              label={tr(`adm.bill.r.${k}`)}
              name={k}
              type={type}
              value={form[k]}
              onValue={set(k)}
              error={fields[k]}
              {...(type === 'number' ? { min: 0 } : {})}
              {...(required ? { required } : {})}
            />
          ))}
        </div>
        <TextAreaField
          label={tr('adm.bill.r.message')}
          name="message"
          value={form.message}
          onValue={set('message')}
          error={fields.message}
          maxLength={5000}
          required
        />
        <Failure error={fail} />
        {sent ? <Notice kind="ok">{tr('adm.bill.r.sent', { email: sent })}</Notice> : null}
        <button class="k-btn k-primary" type="submit" disabled={busy}>
          {tr('adm.bill.r.send')}
        </button>
      </form>
    </Panel>
  )
}

/** Which channels and members stay on Free: stored for later on Pro, applied at once when frozen. */
/** `onApplied`: the plan moved to Free now, and this panel goes with it: the page says so. */
const FreeChoice = ({ b, onApplied }: { b: Overview; onApplied: (said: string) => void }) => {
  const tr = useTr()
  const d = b.downgrade
  const [channels, setChannels] = useState<readonly number[]>(d.choice?.channel_ids ?? [])
  const [members, setMembers] = useState<readonly number[]>(d.choice?.member_ids ?? [])
  const [fail, setFail] = useState<unknown>(null)
  const [done, setDone] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const fields = failFields(fail)
  const toggle = (list: readonly number[], id: number, on: boolean) =>
    on ? [...list.filter((x) => x !== id), id] : list.filter((x) => x !== id)
  const save = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setFail(null)
    setDone(null)
    try {
      const r = await got<{ applied: boolean }>(
        api.post('/v1/billing/downgrade-choice', {
          body: { channel_ids: [...channels], member_ids: [...members] },
        }),
      )
      if (r.data.applied) onApplied(tr('adm.bill.choice_applied'))
      else setDone(tr('adm.bill.choice_saved'))
    } catch (err) {
      setFail(err)
    } finally {
      setBusy(false)
    }
  }
  return (
    <Panel title={tr('adm.bill.free_choice')} id="adm-free">
      <form class="k-form" noValidate onSubmit={save} data-testid="free-choice">
        <p class="k-muted">
          {tr('adm.bill.free_choice_text', { channels: d.limits.channels, users: d.limits.users })}
          {b.plan.frozen ? ` ${tr('adm.bill.free_now')}` : ''}
        </p>
        <fieldset class="k-fieldset">
          <legend>{tr('adm.bill.keep_channels')}</legend>
          {d.channels.length === 0 ? <p class="k-muted">{tr('adm.bill.no_channels')}</p> : null}
          {d.channels.map((c) => (
            <CheckField
              key={c.id}
              name="channel_ids"
              label={c.name}
              checked={channels.includes(c.id)}
              onValue={(on) => setChannels((l) => toggle(l, c.id, on))}
            />
          ))}
          {fields.channel_ids ? <small class="k-error">{fields.channel_ids}</small> : null}
        </fieldset>
        <fieldset class="k-fieldset">
          <legend>{tr('adm.bill.keep_members')}</legend>
          {d.members.length === 0 ? <p class="k-muted">{tr('adm.bill.no_members')}</p> : null}
          {d.members.map((m) => (
            <CheckField
              key={m.id}
              name="member_ids"
              label={`${m.name} (${m.email})`}
              checked={members.includes(m.id)}
              onValue={(on) => setMembers((l) => toggle(l, m.id, on))}
            />
          ))}
          {fields.member_ids ? <small class="k-error">{fields.member_ids}</small> : null}
        </fieldset>
        <Failure error={fail} />
        {done ? <Notice kind="ok">{done}</Notice> : null}
        <button class="k-btn k-primary" type="submit" disabled={busy}>
          {tr('adm.bill.choice_save')}
        </button>
      </form>
    </Panel>
  )
}

/** After the payment provider sends the person back (`?invoice=INV-…`): what the server learned. */
const ReturnStatus = ({ number, onPaid }: { number: string; onPaid: () => void }) => {
  const tr = useTr()
  const locale = useLocale()
  const [r, setR] = useState<{ status: Attempt['status']; plan: Plan } | null>(null)
  const [fail, setFail] = useState<unknown>(null)
  const [round, setRound] = useState(0)
  useEffect(() => {
    got<{ status: Attempt['status']; plan: Plan }>(
      api.get('/v1/billing/return', { query: { invoice: number } }),
    ).then((x) => {
      setR(x.data)
      setFail(null)
      if (x.data.status === 'paid') onPaid()
    }, setFail)
  }, [number, round])
  if (fail) return <Failure error={fail} />
  if (!r) return null
  return (
    <div class="k-row" data-testid="return-status" data-status={r.status}>
      <Notice kind={r.status === 'paid' ? 'ok' : r.status === 'pending' ? 'info' : 'bad'}>
        {tr(`adm.bill.return.${r.status}`, { number, date: day(r.plan.pro_until, locale) })}
      </Notice>
      {r.status === 'pending' ? (
        <button type="button" class="k-btn" onClick={() => setRound((n) => n + 1)}>
          {tr('adm.bill.check_again')}
        </button>
      ) : null}
    </div>
  )
}

/**
 * `/app/settings/billing`: the plan and its paid-until date, grace and frozen states, this period's
 * usage, the upgrade to Pro through the payment provider, invoices with their attempts and Pay,
 * the billing profile, a Custom plan request, and what stays on Free. `billing.updated` (a payment
 * settled elsewhere, the plan moved) reloads it; `?invoice=` after the checkout shows the outcome.
 */
const BillingPage = () => {
  ensureStyles()
  const tr = useTr()
  const kit = useKitTr()
  const { search } = use(here)
  const returned = new URLSearchParams(search).get('invoice')
  const [b, setB] = useState<Overview | null>(null)
  const [fail, setFail] = useState<unknown>(null)
  const [version, setVersion] = useState(0)
  const [applied, setApplied] = useState<string | null>(null)

  const load = () =>
    got<Overview>(api.get('/v1/billing')).then((r) => {
      setB(r.data)
      setFail(null)
      setVersion((v) => v + 1)
    }, setFail)
  useEffect(() => {
    void load()
  }, [])
  useWorkspaceEvents(['billing.updated'], () => {
    if (!can('settings.billing')) return
    void load()
    // The plan's limits live in the session too (API keys, AI): follow the new plan.
    void reloadSession()
  })

  return (
    <SettingsPage title={tr('adm.bill.title')} testId="admin-billing">
      {fail && !b ? <Failure error={fail} /> : null}
      {!fail && !b ? <p class="k-muted">{kit('k.loading')}</p> : null}
      {b ? (
        <div class="k-stack">
          {b.plan.frozen ? <FrozenNotice /> : null}
          {applied ? <Notice kind="ok">{applied}</Notice> : null}
          {returned && /^INV-\d{6}-\d{6,}$/.test(returned) ? (
            <ReturnStatus number={returned} onPaid={() => void load()} />
          ) : null}
          <PlanPanel plan={b.plan} />
          <UsagePanel usage={b.usage} plan={b.plan} />
          {b.plan.key !== 'custom' || b.plan.frozen ? <UpgradePanel b={b} /> : null}
          <InvoicesPanel invoices={b.invoices} version={version} />
          {b.plan.key !== 'free' ? (
            <FreeChoice
              key={version}
              b={b}
              onApplied={(said) => {
                setApplied(said)
                void load()
              }}
            />
          ) : null}
          <ProfileForm key={version} profile={b.profile} />
          {b.plan.key !== 'custom' ? <CustomRequest /> : null}
        </div>
      ) : null}
    </SettingsPage>
  )
}

export default BillingPage
