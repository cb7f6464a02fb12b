/**
 * A browser's user agent told as a person says it ("Chrome on Android"): the browser and the
 * system, each the first that matches, most specific first (Edge and Opera also say "Chrome",
 * Chrome also says "Safari", Android also says "Linux").
 */
const browsers: readonly (readonly [RegExp, string])[] = [
  [/Edg(e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/SamsungBrowser\//, 'Samsung Internet'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\/|Chromium\//, 'Chrome'],
  [/Safari\//, 'Safari'],
]

const systems: readonly (readonly [RegExp, string])[] = [
  [/Android/, 'Android'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
]

const first = (ua: string, list: readonly (readonly [RegExp, string])[]) =>
  list.find(([re]) => re.test(ua))?.[1] ?? null

/** `{browser, os}` (either may be null), or null for no user agent. */
export const deviceOf = (ua: string | null) =>
  ua ? { browser: first(ua, browsers), os: first(ua, systems) } : null
