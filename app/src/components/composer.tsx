import { useEffect, useRef, useState } from 'preact/hooks'
import type { Message, Named } from '../api/types'
import type { KbPanel } from '../kb/panel'
import { api } from '../lib/api'
import { bytes } from '../lib/format'
import { t } from '../lib/i18n'
import * as Session from '../lib/session'
import { Paperclip } from './icons'

/**
 * Writing: a reply or an internal note, one attachment, a quoted message, and templates by
 * shortcut (type `/` and part of a shortcut or name; Enter or a click puts the template in).
 * Typing is told to the others (POST /typing) at most every 3 s, and its end on send or blur;
 * never while writing a note.
 *
 * The draft (text and file) belongs to the composer, not to a mode: the mode shown when the
 * button is pressed decides what it becomes. In note mode everything, the file included, is sent
 * as one note (`type=note`, JSON or multipart) and never reaches the customer; the attached file
 * says which way it will go.
 *
 * When someone else has the conversation (its assignee), a reply says so before it is written and
 * asks before it is sent: send anyway, take it over and send, or cancel. Notes never ask.
 */
interface TemplateHit {
  readonly id: number
  readonly name: string
  readonly shortcut: string
  readonly body: string
  readonly rendered?: string
}

export const Composer = ({
  interactionId,
  heldBy,
  takeOver,
  quoting,
  clearQuote,
  onSent,
}: {
  interactionId: number
  /** The assignee when it is someone else. */
  heldBy: Named | null
  takeOver: () => Promise<void>
  quoting: Message | null
  clearQuote: () => void
  onSent: (m: Message) => void
}) => {
  const [mode, setMode] = useState<'reply' | 'note'>('reply')
  const [text, setText] = useState('')
  const [file, setFile] = useState<File | null>(null)
  const [busy, setBusy] = useState(false)
  /** Asking whether to reply in someone else's conversation (the name asked about). */
  const [asking, setAsking] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [hits, setHits] = useState<readonly TemplateHit[]>([])
  const [hit, setHit] = useState(0)
  const typingSent = useRef(0)
  const fileInput = useRef<HTMLInputElement>(null)
  const box = useRef<HTMLTextAreaElement>(null)
  /** The knowledge base panel (app/src/kb/panel.tsx), loaded on first opening. */
  const [kb, setKb] = useState<{ Panel: typeof KbPanel } | null>(null)
  const [kbOpen, setKbOpen] = useState(false)
  const toggleKb = () => {
    if (!kb) void import('../kb/panel').then((m) => setKb({ Panel: m.KbPanel }))
    setKbOpen((o) => !o)
  }

  const typing = (on: boolean) => {
    // A note is never announced; its end only when a reply's typing was told before.
    if (on ? mode === 'note' : typingSent.current === 0) return
    const now = Date.now()
    if (on && now - typingSent.current < 3000) return
    typingSent.current = on ? now : 0
    void api
      .post('/v1/interactions/{id}/typing', { path: { id: interactionId }, body: { typing: on } })
      .catch(() => null)
  }

  const shortcut = mode === 'reply' && /^\/\S*$/.test(text) ? text.slice(1) : null
  useEffect(() => {
    if (shortcut === null) {
      setHits([])
      return
    }
    const ctl = new AbortController()
    void api
      .get('/v1/templates', {
        query: { q: shortcut, interaction_id: interactionId } as never,
        signal: ctl.signal,
      })
      .then((r) => {
        setHits((r.data as readonly TemplateHit[]).slice(0, 8))
        setHit(0)
      })
      .catch(() => null)
    return () => ctl.abort()
  }, [shortcut, interactionId])

  const useTemplate = (tpl: TemplateHit) => {
    setText(tpl.rendered ?? tpl.body)
    setHits([])
    box.current?.focus()
  }

  const switchTo = (next: 'reply' | 'note') => {
    if (next === 'note') typing(false)
    setAsking(null)
    setMode(next)
  }
  // Whoever has it now is who is asked about: a change while asking asks again (or not at all).
  const heldName = heldBy?.name ?? null
  useEffect(() => setAsking((a) => (a === null ? null : heldName)), [heldName])

  const clearFile = () => {
    setFile(null)
    if (fileInput.current) fileInput.current.value = ''
  }

  const send = async (confirmed: 'no' | 'anyway' | 'take' = 'no') => {
    if (busy || (!text.trim() && !file)) return
    // Read once: what the button said when it was pressed is what is sent.
    const asNote = mode === 'note'
    if (!asNote && heldBy && confirmed === 'no') {
      setAsking(heldBy.name)
      return
    }
    setAsking(null)
    setBusy(true)
    setError(null)
    try {
      if (!asNote && confirmed === 'take') await takeOver()
      let body: FormData | Record<string, unknown>
      if (file) {
        const form = new FormData()
        if (asNote) form.set('type', 'note')
        form.set('file', file)
        if (text.trim()) form.set('text', text)
        if (quoting) form.set('reply_to_id', String(quoting.id))
        form.set('client_id', crypto.randomUUID())
        body = form
      } else {
        body = {
          text,
          ...(asNote ? { type: 'note' } : {}),
          ...(quoting ? { reply_to_id: quoting.id } : {}),
          client_id: crypto.randomUUID(),
        }
      }
      const r = await api.post('/v1/interactions/{id}/messages', {
        path: { id: interactionId },
        body: body as never,
      })
      onSent(r.data as unknown as Message)
      setText('')
      clearFile()
      clearQuote()
      typing(false)
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e))
    } finally {
      setBusy(false)
    }
  }

  const onKey = (e: KeyboardEvent) => {
    if (hits.length > 0) {
      if (e.key === 'ArrowDown') setHit((h) => (h + 1) % hits.length)
      else if (e.key === 'ArrowUp') setHit((h) => (h - 1 + hits.length) % hits.length)
      else if (e.key === 'Enter' || e.key === 'Tab') useTemplate(hits[hit]!)
      else if (e.key === 'Escape') setHits([])
      else return
      e.preventDefault()
      return
    }
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault()
      void send()
    }
  }

  return (
    <div class={`composer ${mode}`}>
      <div class="composer-modes">
        <button
          type="button"
          aria-pressed={mode === 'reply'}
          class={mode === 'reply' ? 'mode on' : 'mode'}
          onClick={() => switchTo('reply')}
        >
          {t('conv.reply')}
        </button>
        <button
          type="button"
          aria-pressed={mode === 'note'}
          class={mode === 'note' ? 'mode on' : 'mode'}
          onClick={() => switchTo('note')}
          data-testid="mode-note"
        >
          {t('conv.note')}
        </button>
      </div>
      {heldBy && mode === 'reply' && !asking && (
        <div class="held small" data-testid="held-by">
          {t('conv.assigned_other', { name: heldBy.name })}
        </div>
      )}
      {asking && mode === 'reply' && (
        <div
          class="held asking"
          role="alertdialog"
          aria-label={t('conv.confirm_other', { name: asking })}
          data-testid="confirm-other"
        >
          <span>{t('conv.confirm_other', { name: asking })}</span>
          <span class="held-actions">
            <button
              type="button"
              class="primary"
              onClick={() => void send('anyway')}
              data-testid="send-anyway"
            >
              {t('conv.send_anyway')}
            </button>
            {Session.can('interactions.assign') && (
              <button type="button" onClick={() => void send('take')} data-testid="take-over">
                {t('conv.take_over')}
              </button>
            )}
            <button type="button" class="link" onClick={() => setAsking(null)}>
              {t('conv.cancel')}
            </button>
          </span>
        </div>
      )}
      {quoting && (
        <div class="quoting">
          <span class="muted small">{t('conv.replying_to')}:</span> {quoting.body.slice(0, 120)}
          <button type="button" class="link small" onClick={clearQuote}>
            {t('conv.cancel')}
          </button>
        </div>
      )}
      {hits.length > 0 && (
        <div class="templates" role="listbox" aria-label={t('templates.label')}>
          {hits.map((h, i) => (
            <div
              key={h.id}
              role="option"
              tabIndex={-1}
              aria-selected={i === hit}
              class={i === hit ? 'on' : ''}
              onMouseDown={(e) => {
                e.preventDefault()
                useTemplate(h)
              }}
            >
              <strong>/{h.shortcut.replace(/^\//, '')}</strong> {h.name}
              <div class="muted small">{(h.rendered ?? h.body).slice(0, 90)}</div>
            </div>
          ))}
        </div>
      )}
      {shortcut !== null && hits.length === 0 && shortcut.length > 0 && (
        <div class="muted small pad-x">{t('templates.none')}</div>
      )}
      {kbOpen && kb && (
        <kb.Panel
          onInsert={(x) => setText((old) => (old.trim() ? `${old.trimEnd()}\n\n${x}` : x))}
          onClose={() => setKbOpen(false)}
        />
      )}
      <textarea
        ref={box}
        rows={3}
        aria-label={mode === 'note' ? t('conv.note_placeholder') : t('conv.placeholder')}
        placeholder={mode === 'note' ? t('conv.note_placeholder') : t('conv.placeholder')}
        value={text}
        onInput={(e) => {
          setText(e.currentTarget.value)
          typing(true)
        }}
        onBlur={() => typingSent.current && typing(false)}
        onKeyDown={onKey}
        data-testid="composer"
      />
      {file && (
        <div class={`attached ${mode}`} data-testid="attached" data-mode={mode}>
          <Paperclip />
          <span class="attached-name">{file.name}</span>
          <span class="muted small">({bytes(file.size)})</span>
          <span class="attached-where small">
            {mode === 'note' ? t('conv.file_in_note') : t('conv.file_to_customer')}
          </span>
          <button type="button" class="link small" onClick={clearFile}>
            {t('conv.remove_file')}
          </button>
        </div>
      )}
      {error && (
        <div class="error small" role="alert">
          {error}
        </div>
      )}
      <div class="composer-bar">
        <label class="button ghost">
          <Paperclip />
          <span>{t('conv.attach')}</span>
          <input
            ref={fileInput}
            type="file"
            class="sr-only"
            onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
          />
        </label>
        {Session.can('kb.view') && (
          <button
            type="button"
            class="button ghost"
            aria-expanded={kbOpen}
            onClick={toggleKb}
            data-testid="kb-open"
          >
            {t('nav.kb')}
          </button>
        )}
        <span class="grow" />
        <button type="button" class="primary" disabled={busy} onClick={() => void send()} data-testid="send">
          {mode === 'note' ? t('conv.note') : t('conv.send')}
        </button>
      </div>
    </div>
  )
}
