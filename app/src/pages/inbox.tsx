import { t } from '../lib/i18n'
import type { PageProps } from '../routes'

export default function Inbox(_: PageProps) {
  return <p class="pad muted">{t('conv.pick')}</p>
}
