import { JSONSchema, Schema, SchemaAST } from 'effect'
import { errorStatus } from '../actors/errors'
import type { Route } from './route'

/**
 * The OpenAPI 3.1 document, generated from the routes and the very schemas that validate their
 * requests, so the description cannot drift from the behaviour.
 */
type Json = Record<string, unknown>

/**
 * Effect marks its built-in schemas (unknown, object…) with `$id: /schemas/…`; repeated across one
 * document those ids make it invalid, and they add nothing, so they go.
 */
const withoutBuiltinIds = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(withoutBuiltinIds)
  if (v === null || typeof v !== 'object') return v
  const out: Json = {}
  for (const [k, x] of Object.entries(v)) {
    if (k === '$id' && typeof x === 'string' && x.startsWith('/schemas/')) continue
    out[k] = withoutBuiltinIds(x)
  }
  return out
}

/**
 * Named schemas (Effect's `NumberFromString`, identified structs…) are shared by many operations;
 * they are collected once under `components/schemas` so every `$ref` resolves from the document root.
 */
type Definitions = Record<string, JSONSchema.JsonSchema7>
const jsonSchema = (schema: Schema.Schema.All, definitions: Definitions): Json =>
  withoutBuiltinIds(
    JSONSchema.fromAST(schema.ast, {
      definitions,
      definitionPath: '#/components/schemas/',
      target: 'openApi3.1',
    }),
  ) as Json

/** Optional properties carry `| undefined`, which JSON Schema cannot say and need not. */
const withoutUndefined = (ast: SchemaAST.AST): SchemaAST.AST =>
  SchemaAST.isUnion(ast)
    ? SchemaAST.Union.make(ast.types.filter((t) => !SchemaAST.isUndefinedKeyword(t)))
    : ast

/** Query and path parameters, one per property of the (encoded) struct. */
const parameters = (
  schema: Schema.Schema.All | undefined,
  where: 'query' | 'path',
  definitions: Definitions,
): Json[] => {
  if (!schema) return []
  // Decoded side: a `page` is documented as an integer ≥ 1, not as the string it travels as.
  const ast = SchemaAST.typeAST(schema.ast)
  if (!SchemaAST.isTypeLiteral(ast)) return []
  return ast.propertySignatures.map((p) => ({
    name: String(p.name),
    in: where,
    required: where === 'path' || !p.isOptional,
    schema: jsonSchema(Schema.make(withoutUndefined(p.type)), definitions),
  }))
}

const ErrorSchema = Schema.Struct({
  error: Schema.Struct({
    code: Schema.Literal(...(Object.keys(errorStatus) as [keyof typeof errorStatus])),
    message: Schema.String,
    fields: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  }),
})

/** `GET /v1/api-keys/{id}` → `getV1ApiKeysById`. */
const operationId = (r: Route) =>
  r.method.toLowerCase() +
  r.path
    .split('/')
    .filter(Boolean)
    .map((seg) => seg.replace(/^\{(\w+)\}$/, 'by-$1'))
    .join('-')
    .replace(/(^|[-_.])(\w)/g, (_, __: string, c: string) => c.toUpperCase())

const security = (r: Route) =>
  r.access === 'P'
    ? []
    : r.access === 'A'
      ? [{ session: [] }]
      : r.access === 'C'
        ? [{ channelKey: [] }]
        : r.access === 'V'
          ? [{ visitorToken: [] }]
          : [{ apiKey: [] }, { session: [] }]

export const document = (routes: readonly Route[], serverUrl: string): Json => {
  const definitions: Definitions = {}
  const paths: Record<string, Record<string, Json>> = {}
  for (const r of routes) {
    const op: Json = {
      summary: r.summary,
      tags: [r.tag],
      operationId: operationId(r),
      security: security(r),
      'x-access': r.access,
      ...('permission' in r && r.permission ? { 'x-permission': r.permission } : {}),
      parameters: [
        ...parameters(r.params, 'path', definitions),
        ...parameters(r.query, 'query', definitions),
      ],
      responses: {
        '200': {
          description: 'Success',
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['data'],
                properties: {
                  data: r.response ? jsonSchema(r.response, definitions) : {},
                  meta: { type: 'object' },
                },
              },
            },
          },
        },
        default: {
          description: 'Error',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    }
    if (r.body) {
      op.requestBody = {
        required: true,
        content: { 'application/json': { schema: jsonSchema(r.body, definitions) } },
      }
    }
    paths[r.path] ??= {}
    paths[r.path]![r.method.toLowerCase()] = op
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Kotak workspace messaging service', version: '1.0.0' },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: { Error: jsonSchema(ErrorSchema, definitions), ...(withoutBuiltinIds(definitions) as Json) },
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'Workspace API key `svca_live_…`' },
        session: { type: 'apiKey', in: 'cookie', name: 'kotak_session' },
        channelKey: { type: 'http', scheme: 'bearer', description: 'API channel key `svca_ch_…`' },
        visitorToken: {
          type: 'http',
          scheme: 'bearer',
          description: 'Live chat visitor token `lcv_…` from `POST /v1/livechat/{key}/visitors`',
        },
      },
    },
  }
}

export const toYaml = async (doc: Json): Promise<string> =>
  // The yaml package loads with the first request for the document, not at start.
  (await import('yaml')).default.stringify(doc, { aliasDuplicateObjects: false })
