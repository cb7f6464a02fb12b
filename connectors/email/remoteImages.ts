/*
 * Kept apart from sanitize.ts: showing a stored mail needs only this, not sanitize-html, which
 * loads with the first mail received or sent.
 */
const REMOTE_SRC = /(<img\b[^>]*?\s)src\s*=\s*("(?:https?:)?\/\/[^"]*"|'(?:https?:)?\/\/[^']*')/gi

/**
 * Remote images replaced by an empty placeholder (keeping the original in `data-blocked-src`, which
 * browsers do not load), so opening a mail does not tell its sender it was read.
 */
export const blockRemoteImages = (html: string): string =>
  html.replace(REMOTE_SRC, (_m, head: string, src: string) => `${head}data-blocked-src=${src} src=""`)
