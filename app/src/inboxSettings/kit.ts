import { useState } from 'preact/hooks'
import { defineTexts, failFields } from '../kit'
import { texts } from './texts'

/**
 * What the inbox settings pages take beyond the kit (app/src/kit): their texts, a form's state
 * around one call, and the workspace events that change what they show.
 */
export { ApiError, api, can, failText, got, useWorkspaceEvents } from '../kit'

export const useTr = defineTexts(texts)

/**
 * A form's call: while busy, the failure to tell (FailNotice) and the 422's per-field messages.
 * `run` resolves true when the call succeeded.
 */
export const useCall = () => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<unknown>(null)
  const [fields, setFields] = useState<Readonly<Record<string, string>>>({})
  const reset = () => {
    setError(null)
    setFields({})
  }
  const run = async (f: () => Promise<unknown>) => {
    setBusy(true)
    reset()
    try {
      await f()
      return true
    } catch (e) {
      setError(e)
      setFields(failFields(e))
      return false
    } finally {
      setBusy(false)
    }
  }
  return { busy, error, fields, run, reset }
}
