import { useState } from 'preact/hooks'
import type { LeadDetail, Tr } from './kit'

/** What each part of the lead page takes: the lead, whether the reader may change it, a reload. */
export interface Part {
  lead: LeadDetail
  manage: boolean
  onChange: () => Promise<unknown>
  tr: Tr
}

/** Runs a write, keeps the server's refusal for the part to show, reloads the lead after. */
export const useWrite = (onChange: () => Promise<unknown>) => {
  const [error, setError] = useState<unknown>(null)
  const [busy, setBusy] = useState(false)
  const run = async (f: () => Promise<unknown>) => {
    setBusy(true)
    setError(null)
    try {
      await f()
      await onChange()
      return true
    } catch (e) {
      setError(e)
      return false
    } finally {
      setBusy(false)
    }
  }
  return { error, busy, run }
}
