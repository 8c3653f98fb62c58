/** The resolve hook of no-typescript.mjs: refuses a `.ts`, `.mts` or `.cts` module and anything under tsx. */
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (/\.[cm]?ts$/.test(new URL(resolved.url).pathname) || resolved.url.includes('/node_modules/tsx/')) {
    throw new Error(`the compiled service loaded ${resolved.url}`);
  }
  return resolved;
}
