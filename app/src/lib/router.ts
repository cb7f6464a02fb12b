import { store } from './state'

/**
 * In-browser navigation under /app with the History API; the server answers every /app path with
 * the same page (http/routes/app.ts), so a reload or a shared link opens the same view.
 */
export const BASE = '/app'

const current = () => {
  const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : '/'
  return { path: p === '' ? '/' : p, search: location.search }
}

export const here = store(current())

export const navigate = (path: string, replace = false) => {
  const url = BASE + path
  if (replace) history.replaceState(null, '', url)
  else history.pushState(null, '', url)
  here.set(current())
}

window.addEventListener('popstate', () => here.set(current()))

/**
 * A path segment (a page parameter, a link's token) as typed into the address: a mangled one
 * (`abc%`) cannot be decoded and is kept as it is, so its page says it does not exist or does not
 * work instead of the app failing to render.
 */
export const decodeSegment = (segment: string) => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** `/inbox/:id` against `/inbox/12` gives `{id: '12'}`; null when it does not match. */
export const match = (pattern: string, path: string): Record<string, string> | null => {
  const a = pattern.split('/').filter(Boolean)
  const b = path.split('/').filter(Boolean)
  if (a.length !== b.length) return null
  const params: Record<string, string> = {}
  for (let i = 0; i < a.length; i++) {
    if (a[i]!.startsWith(':')) params[a[i]!.slice(1)] = decodeSegment(b[i]!)
    else if (a[i] !== b[i]) return null
  }
  return params
}

/** Links inside the app navigate without reloading (plain clicks only; new tabs work as usual). */
export const linkClick = (path: string) => (e: MouseEvent) => {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
  e.preventDefault()
  navigate(path)
}
