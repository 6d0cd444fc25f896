// Resolve hook for fs-globsync.mjs: `fs` and `node:fs` resolve to the shim module, except
// for the shim's own import of the real builtin.
const SHIM = new URL("./fs-with-globsync.mjs", import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if ((specifier === "fs" || specifier === "node:fs") && context.parentURL !== SHIM) {
    return { url: SHIM, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
