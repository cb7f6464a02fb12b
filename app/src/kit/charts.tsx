import { useEffect, useRef, useState } from 'preact/hooks'
import { defineTexts, useLocale } from './index'
import { addStyles } from './styles'
import { ScrollTable } from './ui'

/**
 * Charts, SVG of our own (a few KB in the chunks of the pages that draw them instead of a charting
 * library; the reports and the broadcasts dashboard): lines over days and bars over hours, drawn
 * at the width they are given (measured, so the text keeps its size on a phone), with a grid of
 * round numbers, the value under the pointer or the keyboard's focus, and a summary sentence as
 * the picture's name. Each chart's numbers are also in a table beside it (`NumbersTable`, folded
 * under "The numbers as a table"); `ShareBar` draws a share inside a table cell. Their styles
 * (`k-chart`, …) are added when one of them renders, so they cost the first load nothing.
 */
const CSS = `
.k-chart{position:relative;min-width:0}
.k-chart svg{display:block;overflow:visible;font-size:11.5px}
.k-chart-grid line{stroke:#eef0f3}
.k-chart-grid text,.k-chart-tick{fill:#4b5563}
.k-chart-axis{stroke:#9ca3af}
.k-chart-cursor{stroke:#6b7280;stroke-dasharray:3 3}
.k-legend{display:flex;flex-wrap:wrap;gap:4px 14px;font-size:13px;margin:0 0 6px;color:#374151}
.k-legend span,.k-tip span{display:inline-flex;align-items:center;gap:5px}
.k-legend i,.k-tip i{display:inline-block;width:12px;height:12px;border-radius:2px}
.k-tip{position:absolute;top:24px;width:170px;box-sizing:border-box;background:#111827;color:#fff;border-radius:6px;padding:6px 9px;font-size:12.5px;display:flex;flex-direction:column;gap:2px;pointer-events:none}
.k-details{margin-top:10px;font-size:14px}
.k-details summary{cursor:pointer;color:var(--accent,#0f6e5f)}
.k-details summary:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:2px}
.k-details .k-figures{margin-top:8px;max-height:360px;overflow:auto}
.k-figures:focus-visible{outline:2px solid var(--accent,#0f6e5f);outline-offset:2px}
.k-figures>.k-table{display:table;min-width:100%}
.k-figures th[scope=row]{white-space:nowrap}
.k-num,.k-table th.k-num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.k-share{display:inline-block;width:90px;height:8px;border-radius:4px;background:#eef0f3;overflow:hidden;vertical-align:middle}
.k-share span{display:block;height:100%;background:var(--accent,#0f6e5f)}
@media (max-width:640px){.k-share{width:48px}}
`
const ensureChartStyles = () => addStyles('charts', CSS)

const useChartTr = defineTexts({
  'k.as_table': { en: 'The numbers as a table', id: 'Angkanya dalam tabel' },
})

export interface Series {
  readonly key: string
  readonly label: string
  readonly color: string
  readonly values: readonly number[]
}

const HEIGHT = 220
const PAD = { top: 12, right: 12, bottom: 26, left: 44 }

/** The container's width, followed as it changes. */
const useWidth = () => {
  const ref = useRef<HTMLDivElement>(null)
  const [width, setWidth] = useState(0)
  useEffect(() => {
    const el = ref.current
    if (!el) return
    setWidth(el.clientWidth)
    const ro = new ResizeObserver(() => setWidth(el.clientWidth))
    ro.observe(el)
    return () => ro.disconnect()
  }, [])
  return { ref, width }
}

/** A round step for about `n` grid lines up to `top`. */
const niceStep = (top: number, n = 4) => {
  const raw = Math.max(1, top) / n
  const p = 10 ** Math.floor(Math.log10(raw))
  const f = raw / p
  return Math.max(1, (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p)
}

const Grid = (props: {
  top: number
  step: number
  y: (v: number) => number
  width: number
  fmt: (n: number) => string
}) => {
  const lines: number[] = []
  for (let v = 0; v <= props.top; v += props.step) lines.push(v)
  return (
    <g class="k-chart-grid">
      {lines.map((v) => (
        <g key={v}>
          <line x1={PAD.left} x2={props.width - PAD.right} y1={props.y(v)} y2={props.y(v)} />
          <text x={PAD.left - 6} y={props.y(v) + 4} text-anchor="end">
            {props.fmt(v)}
          </text>
        </g>
      ))}
    </g>
  )
}

/** Where along the x axis the pointer is, as an index of `n` points. */
const indexAt = (e: MouseEvent, el: Element, n: number, x0: number, x1: number, bars: boolean) => {
  const r = el.getBoundingClientRect()
  const x = e.clientX - r.left
  const span = x1 - x0
  const i = bars ? Math.floor(((x - x0) / span) * n) : Math.round(((x - x0) / span) * (n - 1))
  return Math.max(0, Math.min(n - 1, i))
}

const Tip = (props: {
  x: number
  width: number
  title: string
  series: readonly Series[]
  i: number
  fmt: (n: number) => string
}) => {
  const left = Math.min(Math.max(props.x - 80, 0), Math.max(0, props.width - 170))
  return (
    <div class="k-tip" style={{ left: `${left}px` }} aria-hidden="true">
      <strong>{props.title}</strong>
      {props.series.map((s) => (
        <span key={s.key}>
          <i style={{ background: s.color }} /> {s.label}: {props.fmt(s.values[props.i] ?? 0)}
        </span>
      ))}
    </div>
  )
}

/**
 * Lines over `labels` (days), one per series; bars instead when there are few points (`bars`).
 * `tick(i)` names the x axis at a point, `title(i)` heads the value box.
 */
export const Chart = (props: {
  series: readonly Series[]
  count: number
  bars?: boolean
  /** Label the x axis from the first point (hours) instead of the last (days, ending today). */
  fromStart?: boolean
  summary: string
  tick: (i: number) => string
  title: (i: number) => string
  fmt: (n: number) => string
  testid: string
}) => {
  ensureChartStyles()
  const { ref, width } = useWidth()
  const [at, setAt] = useState<number | null>(null)
  const n = props.count
  const top0 = Math.max(1, ...props.series.flatMap((s) => s.values))
  const step = niceStep(top0)
  const top = Math.ceil(top0 / step) * step
  const x0 = PAD.left
  const x1 = Math.max(x0 + 1, width - PAD.right)
  const y = (v: number) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - v / top)
  const slot = (x1 - x0) / Math.max(1, n)
  const xAt = (i: number) =>
    props.bars ? x0 + slot * (i + 0.5) : n <= 1 ? (x0 + x1) / 2 : x0 + ((x1 - x0) * i) / (n - 1)
  // About one label per 70 px, always the last.
  const every = Math.max(1, Math.ceil(n / Math.max(1, Math.floor((x1 - x0) / 70))))
  // Days end today (labelled from the end); hours from midnight (`fromStart`).
  const ticks: number[] = []
  if (props.fromStart) for (let i = 0; i < n; i += every) ticks.push(i)
  else for (let i = n - 1; i >= 0; i -= every) ticks.push(i)
  const barW = Math.max(1, (slot * 0.8) / props.series.length)
  return (
    <div class="k-chart" ref={ref} data-testid={props.testid}>
      <p class="k-legend" aria-hidden="true">
        {props.series.map((s) => (
          <span key={s.key}>
            <i style={{ background: s.color }} /> {s.label}
          </span>
        ))}
      </p>
      {width > 0 ? (
        <svg
          width={width}
          height={HEIGHT}
          role="img"
          aria-label={props.summary}
          onMouseMove={(e) => setAt(indexAt(e, e.currentTarget, n, x0, x1, props.bars === true))}
          onMouseLeave={() => setAt(null)}
        >
          <Grid top={top} step={step} y={y} width={width} fmt={props.fmt} />
          {props.bars
            ? props.series.map((s, k) => (
                <g key={s.key} fill={s.color} data-series={s.key}>
                  {s.values.map((v, i) => (
                    <rect
                      key={i}
                      x={x0 + slot * i + slot * 0.1 + barW * k}
                      y={y(v)}
                      width={barW}
                      height={Math.max(0, y(0) - y(v))}
                      data-value={v}
                    />
                  ))}
                </g>
              ))
            : props.series.map((s) => (
                <polyline
                  key={s.key}
                  data-series={s.key}
                  fill="none"
                  stroke={s.color}
                  stroke-width={n > 120 ? 1.25 : 2}
                  stroke-linejoin="round"
                  points={s.values.map((v, i) => `${xAt(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}
                />
              ))}
          <line class="k-chart-axis" x1={x0} x2={x1} y1={y(0)} y2={y(0)} />
          {ticks.map((i) => (
            <text
              key={i}
              class="k-chart-tick"
              x={xAt(i)}
              y={HEIGHT - 8}
              text-anchor={i === n - 1 && !props.bars ? 'end' : 'middle'}
            >
              {props.tick(i)}
            </text>
          ))}
          {at !== null ? (
            <line class="k-chart-cursor" x1={xAt(at)} x2={xAt(at)} y1={PAD.top} y2={y(0)} />
          ) : null}
        </svg>
      ) : (
        <div style={{ height: `${HEIGHT}px` }} />
      )}
      {at !== null ? (
        <Tip x={xAt(at)} width={width} title={props.title(at)} series={props.series} i={at} fmt={props.fmt} />
      ) : null}
    </div>
  )
}

/** A share of the largest as a bar inside a table cell (the number is beside it, in text). */
export const ShareBar = (props: { value: number; top: number; color?: string | null }) => {
  ensureChartStyles()
  return (
    <span class="k-share" aria-hidden="true">
      <span
        style={{
          width: `${props.top > 0 ? Math.round((props.value / props.top) * 100) : 0}%`,
          ...(props.color ? { background: props.color } : {}),
        }}
      />
    </span>
  )
}

/**
 * A chart's numbers as a table, folded under "As a table": what a screen reader (or anyone who
 * wants the exact figures) reads instead of the chart. Each row carries its key as `data-{keyName}`
 * (`data-date`, `data-hour`).
 */
export const NumbersTable = (props: {
  readonly label: string
  readonly testid: string
  /** The first column's heading (what each row is: a date, an hour). */
  readonly first: string
  readonly keyName: 'date' | 'hour'
  readonly columns: readonly string[]
  readonly rows: ReadonlyArray<{
    readonly key: string
    readonly head: string
    readonly values: readonly number[]
  }>
}) => {
  ensureChartStyles()
  const tr = useChartTr()
  const locale = useLocale()
  return (
    <details class="k-details">
      <summary>{tr('k.as_table')}</summary>
      <ScrollTable label={props.label} class="k-figures k-table-wrap">
        <table class="k-table" data-testid={props.testid}>
          <thead>
            <tr>
              <th scope="col">{props.first}</th>
              {props.columns.map((c) => (
                <th key={c} scope="col" class="k-num">
                  {c}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.rows.map((r) => (
              <tr key={r.key} {...{ [`data-${props.keyName}`]: r.key }}>
                <th scope="row">{r.head}</th>
                {r.values.map((v, i) => (
                  <td key={props.columns[i]} class="k-num">
                    {v.toLocaleString(locale === 'id' ? 'id-ID' : 'en-GB')}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
    </details>
  )
}
