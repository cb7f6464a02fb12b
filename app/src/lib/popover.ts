import { useEffect, useRef, useState } from 'preact/hooks'

/** A popover's open state and its box: a press outside the box closes it (the bell, invitations). */
export const usePopover = () => {
  const [open, setOpen] = useState(false)
  const box = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!open) return
    const close = (e: MouseEvent) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false)
    }
    document.addEventListener('mousedown', close)
    return () => document.removeEventListener('mousedown', close)
  }, [open])
  return { open, setOpen, box }
}
