// The loader hook of loadedModules.mjs: reports each module's URL to the main thread.
let port

export const initialize = (data) => {
  port = data.port
}

export const load = (url, context, next) => {
  port.postMessage(url)
  return next(url, context)
}
