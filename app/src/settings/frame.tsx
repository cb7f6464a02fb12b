import type { ComponentChildren } from 'preact'
import { Link } from '../kit'
import { ensureKitStyles } from '../kit/styles'
import { useSettingsTr } from './texts'

/**
 * The frame of every settings page: the way back to Settings, the page's title and what sits
 * beside it (a button that creates), then the page. Adds the kit's styles on first render.
 */
export const SettingsPage = (props: {
  title: string
  /** Beside the title: the page's main action, if the member may take it. */
  actions?: ComponentChildren
  /** `data-testid` of the page's root, for tests. */
  testId?: string
  children: ComponentChildren
}) => {
  ensureKitStyles()
  const tr = useSettingsTr()
  return (
    <div class="k-page" data-testid={props.testId}>
      <Link class="k-back" to="/settings">
        ← {tr('set.back')}
      </Link>
      <div class="k-head">
        <h1>{props.title}</h1>
        {props.actions}
      </div>
      {props.children}
    </div>
  )
}
