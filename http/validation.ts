import { SchemaAST as AST, Either, ParseResult, type Schema } from 'effect'
import { type ApiError, type FieldMessage, invalid } from '../actors/errors'
import { UNSTORABLE } from '../actors/fields'
import { addMessages, hasMessage } from '../actors/i18n'

addMessages({
  'field.utf8': { en: 'is not UTF-8 text', id: 'bukan teks UTF-8' },
  'field.depth': { en: 'nests deeper than {n} levels', id: 'bersarang lebih dari {n} tingkat' },
})

/**
 * The deepest nesting of arrays and objects a JSON body may have (our choice, docs/decisions.md
 * "Hardening (input)"): no request of the API needs more than a few levels, and every walk of a
 * body (the text scan below, the schemas) is recursive.
 */
export const MAX_JSON_DEPTH = 64

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * Bytes as UTF-8 text, or null when they are not UTF-8: a byte that a lenient decoder would turn
 * into U+FFFD is refused, never stored replaced. A BOM is kept (JSON does not allow one).
 */
export const utf8Text = (bytes: Uint8Array): string | null => {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return null
  }
}

/**
 * Whether JSON text nests arrays and objects deeper than `max`, counted in one pass without
 * recursion, before anything parses or walks it: brackets inside strings count for nothing. On
 * text that is no JSON the count means nothing, and the parser refuses it anyway.
 */
export const nestsDeeper = (text: string, max: number): boolean => {
  if (text.length <= max) return false
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 0x5c) i++
      else if (c === 0x22) inString = false
    } else if (c === 0x22) inString = true
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) depth--
  }
  return false
}

/**
 * A JSON request body as a value: 422 on `body` when its bytes are not UTF-8 (`field.utf8`), it
 * nests deeper than `MAX_JSON_DEPTH` (`field.depth`) or it is no JSON (`field.json`).
 */
export const parseJsonBody = (bytes: Uint8Array): Either.Either<unknown, ApiError> => {
  const text = utf8Text(bytes)
  if (text === null) return Either.left(invalid({ body: { key: 'field.utf8' } }))
  if (nestsDeeper(text, MAX_JSON_DEPTH)) {
    return Either.left(invalid({ body: { key: 'field.depth', params: { n: MAX_JSON_DEPTH } } }))
  }
  try {
    return Either.right(JSON.parse(text))
  } catch {
    return Either.left(invalid({ body: { key: 'field.json' } }))
  }
}

/**
 * Every string of the input (values and object keys, at any depth) that holds unstorable text, as
 * field paths. A bad key is reported on its object: the key itself is not echoed back.
 */
export const unstorableText = (input: unknown): string[][] => {
  const found: string[][] = []
  // One path, pushed and popped as the walk goes; copied only for a finding (every request's
  // body passes here, and nearly every body is clean).
  const path: string[] = []
  const walk = (v: unknown) => {
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) found.push([...path])
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(String(i))
        walk(v[i])
        path.pop()
      }
    } else if (v !== null && typeof v === 'object') {
      for (const k in v) {
        if (!Object.hasOwn(v, k)) continue
        if (UNSTORABLE.test(k)) {
          found.push([...path])
          continue
        }
        path.push(k)
        walk((v as Record<string, unknown>)[k])
        path.pop()
      }
    }
  }
  walk(input)
  return found
}

type Decoder = (input: unknown) => Either.Either<unknown, ParseResult.ParseIssue>
/** Each schema's decoder, made once: a route's schema decodes every request it gets. */
const decoders = new WeakMap<object, Decoder>()
const decoderOf = <A, I>(schema: Schema.Schema<A, I, never>) => {
  let d = decoders.get(schema)
  if (!d) {
    d = ParseResult.decodeUnknownEither(schema, { errors: 'all', onExcessProperty: 'ignore' })
    decoders.set(schema, d)
  }
  return d as (input: unknown) => Either.Either<A, ParseResult.ParseIssue>
}

/**
 * Decodes input with a schema and turns every issue into `error.fields`: field path to a message
 * key with parameters, derived from the schema itself (its JSON Schema annotations), so that one
 * schema gives validation, localized messages and the OpenAPI document.
 *
 * Before the schema, any string holding NUL or an unpaired surrogate is refused with
 * `field.characters` on its path, whether or not the schema keeps that field: this is the one
 * place every body, multipart text field, query and path parameter of both services passes
 * (docs/decisions.md, "Hardening (input)").
 */
export const decode = <A, I>(
  schema: Schema.Schema<A, I, never>,
  input: unknown,
  root: string,
): Either.Either<A, ApiError> => {
  const unstorable = unstorableText(input)
  if (unstorable.length > 0) {
    const fields: Record<string, FieldMessage> = {}
    for (const p of unstorable) put(fields, p, { key: 'field.characters' })
    return Either.left(invalid(renameRoot(fields, root)))
  }
  const result = decoderOf(schema)(input)
  if (Either.isRight(result)) return Either.right(result.right)
  const fields: Record<string, FieldMessage> = {}
  collect(result.left, [], fields)
  if (Object.keys(fields).length === 0) fields[root] = { key: 'field.invalid' }
  return Either.left(invalid(renameRoot(fields, root)))
}

const renameRoot = (fields: Record<string, FieldMessage>, root: string) => {
  const out: Record<string, FieldMessage> = {}
  for (const [k, v] of Object.entries(fields)) out[k === '' ? root : k] = v
  return out
}

const put = (fields: Record<string, FieldMessage>, path: readonly PropertyKey[], msg: FieldMessage) => {
  const key = path.map(String).join('.')
  if (!(key in fields)) fields[key] = msg
}

const collect = (
  issue: ParseResult.ParseIssue,
  path: readonly PropertyKey[],
  fields: Record<string, FieldMessage>,
) => {
  switch (issue._tag) {
    case 'Pointer': {
      const p = Array.isArray(issue.path) ? issue.path : [issue.path]
      collect(issue.issue, [...path, ...p], fields)
      return
    }
    case 'Composite': {
      const list = Array.isArray(issue.issues) ? issue.issues : [issue.issues]
      // A union whose members all failed on type: say what the value must be, once.
      if (AST.isUnion(issue.ast) && list.every((i: ParseResult.ParseIssue) => i._tag === 'Type')) {
        put(fields, path, describeType(issue.ast))
        return
      }
      for (const i of list as ParseResult.ParseIssue[]) collect(i, path, fields)
      return
    }
    case 'Missing':
      put(fields, path, { key: 'field.required' })
      return
    case 'Unexpected':
      put(fields, path, { key: 'field.unexpected' })
      return
    case 'Forbidden':
      put(fields, path, { key: 'field.invalid' })
      return
    case 'Type':
      put(fields, path, describeType(issue.ast))
      return
    case 'Refinement':
      if (issue.kind === 'From') collect(issue.issue, path, fields)
      else put(fields, path, describeRefinement(issue))
      return
    case 'Transformation':
      if (issue.kind === 'Transformation') put(fields, path, describeType(AST.typeAST(issue.ast)))
      else collect(issue.issue, path, fields)
      return
  }
}

const typeName = (ast: AST.AST): string | undefined => {
  switch (ast._tag) {
    case 'StringKeyword':
      return 'string'
    case 'NumberKeyword':
      return 'number'
    case 'BooleanKeyword':
      return 'boolean'
    case 'TypeLiteral':
      return 'object'
    case 'TupleType':
      return 'array'
    case 'Refinement':
      return typeName(ast.from)
    case 'Transformation':
      return typeName(ast.to)
    default:
      return undefined
  }
}

const literals = (ast: AST.AST): string[] | undefined => {
  if (AST.isLiteral(ast)) return [String(ast.literal)]
  if (AST.isUnion(ast)) {
    const all = ast.types.map(literals)
    if (all.every((x): x is string[] => x !== undefined)) return all.flat()
  }
  return undefined
}

const describeType = (ast: AST.AST): FieldMessage => {
  const values = literals(ast)
  if (values) return { key: 'field.one_of', params: { values: values.join(', ') } }
  if (AST.isUnion(ast)) {
    const names = ast.types
      .map((t) => (AST.isLiteral(t) && t.literal === null ? 'null' : typeName(t)))
      .filter((x): x is string => x !== undefined)
    if (names.length > 0) return { key: 'field.type', params: { type: names.join(' | ') } }
  }
  const name = typeName(ast)
  return name ? { key: 'field.type', params: { type: name } } : { key: 'field.invalid' }
}

type JsonSchemaHints = {
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  exclusiveMinimum?: number
  minItems?: number
  maxItems?: number
  pattern?: string
  type?: string
}

const describeRefinement = (issue: ParseResult.Refinement): FieldMessage => {
  const ast = issue.ast
  // A filter can name its own catalogue key through its message annotation.
  const message = AST.getMessageAnnotation(ast)
  if (message._tag === 'Some') {
    const m = message.value(issue)
    if (typeof m === 'string' && hasMessage(m)) return { key: m }
  }
  const js = AST.getJSONSchemaAnnotation(ast)
  const h: JsonSchemaHints = js._tag === 'Some' ? (js.value as JsonSchemaHints) : {}
  const actual = issue.actual
  const length =
    typeof actual === 'string' ? actual.trim().length : Array.isArray(actual) ? actual.length : undefined
  // Query values reach a number refinement as the string that was sent.
  const num =
    typeof actual === 'number'
      ? actual
      : typeof actual === 'string' && actual.trim() !== ''
        ? Number(actual)
        : undefined
  // Several bounds may sit on one filter (between): name the one the value broke.
  if (h.minLength !== undefined && (length === undefined || length < h.minLength)) {
    return { key: 'field.min_length', params: { n: h.minLength } }
  }
  if (h.maxLength !== undefined) return { key: 'field.max_length', params: { n: h.maxLength } }
  if (h.minItems !== undefined && (length === undefined || length < h.minItems)) {
    return { key: 'field.min_items', params: { n: h.minItems } }
  }
  if (h.maxItems !== undefined) return { key: 'field.max_items', params: { n: h.maxItems } }
  if (h.minimum !== undefined && (num === undefined || num < h.minimum)) {
    return { key: 'field.minimum', params: { n: h.minimum } }
  }
  if (h.exclusiveMinimum !== undefined && (num === undefined || num <= h.exclusiveMinimum)) {
    return { key: 'field.minimum', params: { n: h.exclusiveMinimum + 1 } }
  }
  if (h.maximum !== undefined) return { key: 'field.maximum', params: { n: h.maximum } }
  if (h.type === 'integer') return { key: 'field.integer' }
  if (h.pattern !== undefined) return { key: 'field.pattern' }
  return { key: 'field.invalid' }
}
