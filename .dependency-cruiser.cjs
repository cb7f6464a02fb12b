/**
 * The layer rule of docs/architecture.md, checked by `npm run deps` (and so by .ci/run):
 * engine ← store ← actors ← connectors ← http, social beside http, no circles. Type-only imports
 * count: a type is a dependency too. There is no allow-list; a new arrow back fails CI.
 */
const layers = ['engine', 'store', 'actors', 'connectors', 'http']
const above = (i) => layers.slice(i + 1)

/**
 * The spec areas under actors/, lowest first: an area imports only the areas before it (a DAG as
 * one order). What two areas share moves down, into an earlier area or into actors/*.ts, which
 * import no area at all (actors/index.ts, the composition root of every actor, excepted); where a
 * lower area needs something of a higher one, it declares a port that the higher area implements
 * (actors/inbox/conversationTickets.ts).
 */
const areas = [
  'admin',
  'ai',
  'kb',
  'channels',
  'inbox',
  'livechat',
  'tickets',
  'contacts',
  'pipeline',
  'reports',
  'broadcasts',
]

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layers.slice(0, -1).map((layer, i) => ({
      name: `${layer}-imports-upward`,
      comment: `${layer}/ may import only ${layers.slice(0, i).join(', ') || 'libraries'} (docs/architecture.md)`,
      severity: 'error',
      from: { path: `^${layer}/` },
      to: { path: `^(${[...above(i), 'social'].join('|')})/` },
    })),
    {
      name: 'http-imports-social',
      comment: 'the social reporting service is separate: the main service never imports it',
      severity: 'error',
      from: { path: '^http/' },
      to: { path: '^social/' },
    },
    {
      name: 'social-imports-domain',
      comment:
        'the social service shares the kernel (engine, store, http transport, the error catalogue), not the domain',
      severity: 'error',
      from: { path: '^social/' },
      to: { path: '^(connectors|actors/(?!errors\\.ts|i18n\\.ts))' },
    },
    {
      name: 'route-imports-route',
      comment:
        'a route module is one spec section: what two sections share is domain (actors/) or transport (http/)',
      severity: 'error',
      from: { path: '^http/routes/([^/]+)\\.ts$', pathNot: '^http/routes/index\\.ts$' },
      to: { path: '^http/routes/', pathNot: '^http/routes/$1\\.ts$' },
    },
    {
      name: 'route-runs-sql',
      comment: 'no SQL in a handler: reads are store/ functions, writes domain operations in actors/',
      severity: 'error',
      from: { path: '^http/routes/' },
      to: { path: '@effect/sql' },
    },
    ...areas.map((area, i) => ({
      name: `area-${area}-imports-later-area`,
      comment: `actors/${area}/ may import only the areas before it: ${areas.slice(0, i).join(', ') || 'none'} (docs/architecture.md)`,
      severity: 'error',
      from: { path: `^actors/${area}/` },
      to: { path: `^actors/(${areas.slice(i + 1).join('|') || '$^'})/` },
    })),
    {
      name: 'area-unknown',
      comment: 'every folder under actors/ is a spec area listed in `areas` (.dependency-cruiser.cjs)',
      severity: 'error',
      from: { path: `^actors/(?!(${areas.join('|')})/)[^/]+/` },
      to: {},
    },
    {
      name: 'shared-domain-imports-area',
      comment: 'actors/*.ts is what the areas share: it imports no area (actors/index.ts composes them)',
      severity: 'error',
      from: { path: '^actors/[^/]+\\.ts$', pathNot: '^actors/index\\.ts$' },
      to: { path: '^actors/[^/]+/' },
    },
    {
      name: 'no-circular',
      comment: 'two modules that import each other are one module, or a port is missing',
      severity: 'error',
      from: { path: '^(engine|store|actors|connectors|http|social)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
}
