import { useEffect, useRef, useState } from 'preact/hooks'

/**
 * The reports' charts, SVG of our own (a few KB in the reports chunk instead of a charting
 * library): lines over days and bars over hours, drawn at the width they are given (measured, so
 * the text keeps its size on a phone), with a grid of round numbers, the value under the pointer
 * or the keyboard's focus, and a summary sentence as the picture's name. Each chart's numbers are
 * also in a table beside it (the pages' `<details>`).
 */

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
    <g class="rp-grid">
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
    <div class="rp-tip" style={{ left: `${left}px` }} aria-hidden="true">
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
    <div class="rp-chart" ref={ref} data-testid={props.testid}>
      <p class="rp-legend" aria-hidden="true">
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
          <line class="rp-axis" x1={x0} x2={x1} y1={y(0)} y2={y(0)} />
          {ticks.map((i) => (
            <text
              key={i}
              class="rp-tick"
              x={xAt(i)}
              y={HEIGHT - 8}
              text-anchor={i === n - 1 && !props.bars ? 'end' : 'middle'}
            >
              {props.tick(i)}
            </text>
          ))}
          {at !== null ? <line class="rp-cursor" x1={xAt(at)} x2={xAt(at)} y1={PAD.top} y2={y(0)} /> : null}
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
export const ShareBar = (props: { value: number; top: number; color?: string | null }) => (
  <span class="rp-share" aria-hidden="true">
    <span
      style={{
        width: `${props.top > 0 ? Math.round((props.value / props.top) * 100) : 0}%`,
        ...(props.color ? { background: props.color } : {}),
      }}
    />
  </span>
)
