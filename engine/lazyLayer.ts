import { Effect, Layer } from 'effect'

/**
 * A layer whose module is imported only when the layer is built, so what a deployment does not
 * use (Redis and the cluster on a single node, SMTP without `SMTP_URL`, …) is never loaded
 * (docs/decisions.md, "Production start and footprint"). `make` picks the layer from the module,
 * as it would from a static import.
 */
export const lazyLayer = <M, ROut, E, RIn>(
  load: () => Promise<M>,
  make: (module: M) => Layer.Layer<ROut, E, RIn>,
): Layer.Layer<ROut, E, RIn> => Layer.unwrapEffect(Effect.map(Effect.promise(load), make))
