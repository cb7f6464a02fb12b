/**
 * Word search shared by the knowledge base and the inbox: both use the `kb_text` configuration
 * (migration 0075: the simple parser with unaccent, so Indonesian and English words match alike
 * without a stemmer that knows only one of them) and prefix matching.
 */

/**
 * The words of a query as a `tsquery` text: letters and digits only (nothing else can reach the
 * parser), each a word or the start of one, all required. Null when the query has no word.
 */
export const tsQueryOf = (q: string): string | null => {
  const words = (
    q
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).slice(0, 16)
  return words.length === 0 ? null : words.map((w) => `${w.slice(0, 60)}:*`).join(' & ')
}
