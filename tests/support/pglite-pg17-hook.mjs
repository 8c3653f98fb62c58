/** Resolves `@electric-sql/pglite` to the `pglite-pg17` alias (PGlite 0.4); see pglite-pg17.mjs. */
export async function resolve(specifier, context, next) {
  return next(specifier === '@electric-sql/pglite' ? 'pglite-pg17' : specifier, context);
}
