import type { ComponentType } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { AccountMenu } from './components/accountMenu'
import { Bell } from './components/bell'
import { InvitationsMenu } from './components/invitations'
import { MenuButton, NavAccount, NavBackdrop, navOpen, WorkspaceSelect } from './components/phoneNav'
import { ApiError, csrfToken, setSignedOutHandler, signOut } from './lib/api'
import { type Locale, locale, t } from './lib/i18n'
import * as Invitations from './lib/invitations'
import { returnPath } from './lib/returnPath'
import { decodeSegment, here, linkClick, match, navigate } from './lib/router'
import * as Session from './lib/session'
import * as Socket from './lib/socket'
import { use } from './lib/state'
import type { Visitor } from './pages/invite'
import { SignIn } from './pages/signin'
import { HOME, type PageProps, type PageRoute, pages } from './routes'

/** By loader: paths sharing one (the inbox with and without a conversation) share the page. */
const loaded = new Map<PageRoute['load'], ComponentType<PageProps>>()

/** The page for the current path, loaded on first use. */
const Outlet = () => {
  const { path } = use(here)
  const [, setTick] = useState(0)
  let found: { route: (typeof pages)[number]; params: Record<string, string> } | null = null
  for (const route of pages) {
    const params = match(route.path, path)
    if (params) {
      found = { route, params }
      break
    }
  }
  useEffect(() => {
    if (path === '/' || !found) navigate(HOME, true)
  }, [path, found])
  const route = found?.route
  useEffect(() => {
    if (route && !loaded.has(route.load))
      void route.load().then((m) => {
        loaded.set(route.load, m.default)
        setTick((n) => n + 1)
      })
  }, [route])
  if (!found) return null
  const Page = loaded.get(found.route.load)
  return Page ? <Page params={found.params} /> : <p class="muted pad">{t('list.loading')}</p>
}

/** A page outside the signed-in layout (an invitation link, no workspace yet), loaded on first use. */
const invitePage = () => import('./pages/invite')
const welcomePage = () => import('./pages/welcome')
const linkPage = () => import('./pages/link')
const setupPage = () => import('./pages/setup')
const Standalone = <P,>({
  load,
  props,
}: {
  load: () => Promise<{ default: ComponentType<P> }>
  props: P
}) => {
  const [Page, setPage] = useState<ComponentType<P> | null>(null)
  useEffect(() => {
    void load().then((m) => setPage(() => m.default))
  }, [load])
  return Page ? <Page {...(props as P & object)} /> : <p class="pad muted">{t('list.loading')}</p>
}

const ConnectionBadge = () => {
  const state = use(Socket.connection)
  const settled = use(Socket.settled)
  return (
    <span
      class={`conn conn-${state}`}
      role="status"
      aria-live="polite"
      data-testid="connection"
      data-settled={state === 'open' && settled ? 'true' : 'false'}
    >
      <span class="dot" aria-hidden="true" />
      {t(`conn.${state}`)}
      {state === 'down' && (
        <button type="button" class="link" onClick={Socket.reconnectNow}>
          {t('conn.retry')}
        </button>
      )}
    </span>
  )
}

const TopBar = ({ me }: { me: Session.Me }) => {
  const lang = use(locale)
  return (
    <header class="topbar">
      <MenuButton />
      <a href="/app" class="brand" onClick={linkClick(HOME)}>
        Kotak
      </a>
      <WorkspaceSelect me={me} place="topbar" />
      <span class="grow" />
      <ConnectionBadge />
      <InvitationsMenu userId={me.user.id} />
      <Bell userId={me.user.id} />
      <select
        class="lang wide-only"
        value={lang}
        aria-label={t('language')}
        onChange={(e) => void Session.setLanguage(e.currentTarget.value as Locale)}
      >
        <option value="en">EN</option>
        <option value="id">ID</option>
      </select>
      <AccountMenu me={me} />
      <button type="button" class="ghost wide-only" onClick={() => void signOut()}>
        {t('signout')}
      </button>
    </header>
  )
}

const Nav = ({ me }: { me: Session.Me }) => {
  const { path } = use(here)
  const open = use(navOpen)
  return (
    <nav class="sidenav" id="sidenav" aria-label={t('nav.label')}>
      {pages
        .filter((p) => p.nav && Session.canAny(p.nav.permission))
        .map((p) => {
          const active = path === p.path || path.startsWith(`${p.path}/`)
          return (
            <a
              key={p.path}
              href={`/app${p.path}`}
              class={active ? 'active' : ''}
              aria-current={active ? 'page' : undefined}
              onClick={linkClick(p.path)}
            >
              <span aria-hidden="true">{p.nav!.icon}</span> {t(p.nav!.label)}
            </a>
          )
        })}
      {open && <NavAccount me={me} />}
    </nav>
  )
}

export const App = () => {
  const me = use(Session.me)
  use(locale)
  const drawer = use(navOpen)
  const { path, search } = use(here)
  const [error, setError] = useState<string | null>(null)
  const [noWorkspace, setNoWorkspace] = useState(false)
  useEffect(() => {
    // Back from signing in (which lands on /app) to the invitation that asked for it.
    // Only there: a sign-in link's own page, on the way, must leave it for after the sign-in.
    if (here.get().path === '/' || here.get().path === HOME) {
      const back = Invitations.takeReturn()
      if (back) navigate(back, true)
    }
    setSignedOutHandler(() => Session.me.set(false))
    // With a session (its CSRF cookie is readable), the page's code comes beside /v1/me instead of
    // after it: one round trip and a chunk's parse less before a deep link (say /reports) draws.
    // Signed out, nothing more is fetched for the sign-in page.
    if (csrfToken() !== '') void pages.find((p) => match(p.path, here.get().path) !== null)?.load()
    Session.load()
      .then(() => Socket.start())
      .catch((e: unknown) => {
        if (e instanceof ApiError && e.status === 401) Session.me.set(false)
        else if (e instanceof ApiError && e.code === 'workspace_required') setNoWorkspace(true)
        else setError(e instanceof Error ? e.message : String(e))
      })
  }, [])
  // The first run's link (`npm start` logs it), signed in or not; its token is base64url, kept as typed.
  const setupToken = /^\/setup\/([^/]+)$/.exec(path)?.[1]
  if (setupToken) return <Standalone load={setupPage} props={{ token: setupToken }} />
  // A sign-in link's page, signed in or not: its button signs in as the link's owner.
  const linkToken = /^\/link\/([^/]+)$/.exec(path)?.[1]
  if (linkToken) {
    const returnTo = returnPath(new URLSearchParams(search).get('return_to'))
    return <Standalone load={linkPage} props={{ token: decodeSegment(linkToken), returnTo }} />
  }
  const token = /^\/invite\/([^/]+)$/.exec(path)?.[1]
  if (token) {
    const visitor: Visitor = noWorkspace
      ? { kind: 'none' }
      : me === false
        ? { kind: 'out' }
        : me === null
          ? { kind: error ? 'out' : 'loading' }
          : { kind: 'member', email: me.user.email }
    return <Standalone load={invitePage} props={{ token: decodeSegment(token), visitor }} />
  }
  if (noWorkspace) return <Standalone load={welcomePage} props={{}} />
  if (error) return <p class="pad error">{t('error.generic', { message: error })}</p>
  if (me === null) return <p class="pad muted">{t('list.loading')}</p>
  if (me === false) return <SignIn />
  return (
    <div class={drawer ? 'layout nav-open' : 'layout'}>
      <TopBar me={me} />
      <Nav me={me} />
      <NavBackdrop />
      <main class="main" id="main">
        <Outlet />
      </main>
    </div>
  )
}
