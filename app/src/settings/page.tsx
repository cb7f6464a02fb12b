import { can, Link } from '../kit'
import { ensureKitStyles } from '../kit/styles'
import { allowed, type Section, sections } from './sections'
import { useSettingsTr } from './texts'

/** Settings' index: the sections the member's role opens, grouped, each with what it holds. */
const Settings = () => {
  ensureKitStyles()
  const tr = useSettingsTr()
  const mine = sections.filter((x) => allowed(x, can))
  const groups = (['workspace', 'inbox', 'account'] as const)
    .map((g) => [g, mine.filter((x) => x.group === g)] as const)
    .filter(([, list]) => list.length > 0)
  return (
    <div class="k-page" data-testid="settings-index">
      <div class="k-head">
        <h1>{tr('set.title')}</h1>
      </div>
      {groups.length === 0 ? <p class="k-muted">{tr('set.none')}</p> : null}
      {groups.map(([g, list]) => (
        <section key={g} aria-labelledby={`set-${g}`}>
          <h2 class="k-sub" id={`set-${g}`}>
            {tr(`set.group.${g}`)}
          </h2>
          <ul class="k-cards">
            {list.map((x: Section) => (
              <li key={x.path}>
                <Link class="k-card" to={x.path}>
                  <strong>{tr(x.label)}</strong>
                  <span>{tr(x.hint)}</span>
                </Link>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  )
}

export default Settings
