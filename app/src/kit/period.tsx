import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { Field, SelectField } from './ui'

/**
 * A period of whole days for the pages that chart one (the reports, the broadcasts dashboard):
 * `YYYY-MM-DD` dates with calendar arithmetic in UTC (no zone can shift a calendar date) and
 * their names as the reader writes them, today in a zone, the presets (a number of days ending today, or `month`, this month so far), and the
 * filter form that picks one: a preset, or two dates applied with a button, with the page's own
 * fields after them. The page keeps the period in its address and words the labels.
 */
export interface Period {
  readonly from: string
  readonly to: string
}

const utc = (date: string) => {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return Date.UTC(y, m - 1, d)
}
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10)
export const addDays = (date: string, n: number) => iso(utc(date) + n * 86_400_000)
/** Days from `from` to `to`, both counted. */
export const spanOf = (from: string, to: string) => Math.round((utc(to) - utc(from)) / 86_400_000) + 1
const DATE = /^\d{4}-\d{2}-\d{2}$/
export const isDate = (s: string | null): s is string => s !== null && DATE.test(s) && !Number.isNaN(utc(s))

const lang = (locale: string) => (locale === 'id' ? 'id-ID' : 'en-GB')
/** 3 Nov (with the weekday and year when `long`: Tue, 3 Nov 2026). */
export const dayLabel = (date: string, locale: string, long = false) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString(lang(locale), {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    ...(long ? { weekday: 'short', year: 'numeric' } : {}),
  })
/** 3 Nov 2026. */
export const longDay = (date: string, locale: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString(lang(locale), {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'short',
    year: 'numeric',
  })

/** Today's date in `zone`. */
export const todayIn = (zone: string) =>
  new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date())

/** A preset's period ending `today`: `month` from the 1st, else its number of days. */
export const presetRange = (preset: string, today: string): Period =>
  preset === 'month'
    ? { from: `${today.slice(0, 8)}01`, to: today }
    : { from: addDays(today, -(Number(preset) - 1)), to: today }

/** The preset of `presets` a period is (ending today), else `custom`. */
export const presetOf = (p: Period, today: string, presets: readonly string[]) => {
  if (p.to !== today) return 'custom'
  if (presets.includes('month') && p.from === `${today.slice(0, 8)}01`) return 'month'
  const days = String(spanOf(p.from, p.to))
  return presets.includes(days) ? days : 'custom'
}

/** The labels of the period's fields, in the page's words (`p.7`, `p.month`, `p.custom`, …). */
export type PeriodText = (key: 'period' | 'from' | 'to' | 'apply' | `p.${string}`) => string

/**
 * A filter form beginning with the period: the presets and `custom`, which shows two dates (at
 * most today) and a button that applies them; `children` are the page's other fields.
 */
export const PeriodForm = (props: {
  class: string
  label: string
  testid?: string
  period: Period
  today: string
  presets: readonly string[]
  text: PeriodText
  onPeriod: (p: Period) => void
  children?: ComponentChildren
}) => {
  const { period, today, text } = props
  const [preset, setPreset] = useState(presetOf(period, today, props.presets))
  const [from, setFrom] = useState(period.from)
  const [to, setTo] = useState(period.to)
  useEffect(() => {
    setPreset(presetOf(period, today, props.presets))
    setFrom(period.from)
    setTo(period.to)
  }, [period.from, period.to])
  return (
    <form
      class={props.class}
      aria-label={props.label}
      data-testid={props.testid}
      onSubmit={(e) => {
        e.preventDefault()
        if (isDate(from) && isDate(to)) props.onPeriod({ from, to })
      }}
    >
      <SelectField
        label={text('period')}
        name="period"
        value={preset}
        options={[...props.presets, 'custom'].map((p) => [p, text(`p.${p}`)] as const)}
        onValue={(p) => {
          setPreset(p)
          if (p !== 'custom') props.onPeriod(presetRange(p, today))
        }}
      />
      {preset === 'custom' ? (
        <>
          <DateField label={text('from')} name="from" value={from} max={today} onValue={setFrom} />
          <DateField label={text('to')} name="to" value={to} max={today} onValue={setTo} />
          <button type="submit" class="k-btn k-primary k-end">
            {text('apply')}
          </button>
        </>
      ) : null}
      {props.children}
    </form>
  )
}

const DateField = (props: {
  label: string
  name: string
  value: string
  max: string
  onValue: (v: string) => void
}) => (
  <Field label={props.label}>
    {(id) => (
      <input
        id={id}
        type="date"
        name={props.name}
        value={props.value}
        max={props.max}
        required
        onInput={(e) => props.onValue(e.currentTarget.value)}
      />
    )}
  </Field>
)
