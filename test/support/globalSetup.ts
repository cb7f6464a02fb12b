import { missingLine, missingPackages } from './systemPackages'

/** Runs once per vitest run: one line when suites will skip for a missing Debian package. */
export default function setup() {
  const missing = missingPackages()
  if (missing.length > 0) console.warn(missingLine(missing))
}
