import { PRECHAT_FIELDS, type Prechat, type PrechatField } from '../channels/livechatPrechat'

/**
 * The start form's answers under the owner's pre-chat setting (spec 1 §4.6 asks for all three;
 * `prechat` can make each optional or hidden). A blank answer is no answer. A hidden field that a
 * client sends anyway is kept: hidden means the widget does not ask, and the widget itself asks
 * for an e-mail address outside business hours when the e-mail fallback is on.
 */
export interface StartAnswers {
  readonly name?: string | null | undefined
  readonly email?: string | null | undefined
  readonly phone?: string | null | undefined
}

export interface StartFields {
  readonly name: string
  readonly email: string | null
  readonly phone: string | null
}

export type StartDecision =
  | { readonly _tag: 'Missing'; readonly fields: readonly PrechatField[] }
  | { readonly _tag: 'Ok'; readonly fields: StartFields }

/** A visitor who gave no name is called `Visitor 1234`; the number tells two of them apart at a glance. */
export const anonymousName = (n: number) => `Visitor ${n}`

const answer = (v: string | null | undefined) => {
  const t = (v ?? '').trim()
  return t === '' ? null : t
}

/** `visitorNumber` names a visitor without a name (1000–9999, picked by the caller). */
export const decideStart = (prechat: Prechat, body: StartAnswers, visitorNumber: number): StartDecision => {
  const given = { name: answer(body.name), email: answer(body.email), phone: answer(body.phone) }
  const missing = PRECHAT_FIELDS.filter((f) => prechat[f] === 'required' && given[f] === null)
  if (missing.length > 0) return { _tag: 'Missing', fields: missing }
  return {
    _tag: 'Ok',
    fields: { name: given.name ?? anonymousName(visitorNumber), email: given.email, phone: given.phone },
  }
}
