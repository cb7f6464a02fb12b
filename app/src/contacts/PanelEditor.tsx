import { useEffect, useState } from 'preact/hooks'
import { FailNotice } from '../kit/ui'
import { ContactForm } from './ContactForm'
import { api, type Contact, got, useTr } from './kit'
import { useLabels } from './ProfilePage'
import { ensureStyles } from './styles'

/**
 * The conversation's contact panel's editor (loaded when the agent first presses Edit there): the
 * contact as it is now (GET /contacts/{id}), then its name, phone, e-mail and labels in the
 * contact form, written with PATCH /contacts/{id}.
 */
const PanelEditor = (props: { id: number; onSaved: (c: Contact) => void; onCancel: () => void }) => {
  ensureStyles()
  const tr = useTr()
  const { labels } = useLabels()
  const [c, setC] = useState<Contact | null>(null)
  const [failed, setFailed] = useState<unknown>(null)
  useEffect(() => {
    void got<Contact>(api.get('/v1/contacts/{id}', { path: { id: props.id } })).then(
      (r) => setC(r.data),
      setFailed,
    )
  }, [props.id])
  return (
    <div class="ct-panel-edit" data-testid="panel-editor">
      <FailNotice error={failed} />
      {c ? (
        <ContactForm
          contact={c}
          only={['name', 'phone', 'email']}
          labels={labels}
          onSaved={props.onSaved}
          onCancel={props.onCancel}
        />
      ) : (
        !failed && <p class="k-muted">{tr('ct.loading')}</p>
      )}
    </div>
  )
}
export default PanelEditor
