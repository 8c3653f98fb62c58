/**
 * The parts of a custom action's output path (SPEC.md "Custom action": output extraction):
 * `.name`, `[n]`, and the filter `[?@.name=="text"]` (or `[?@=="text"]` on the element
 * itself), RFC 9535's equality filter narrowed to one comparison with a quoted text that
 * may hold input placeholders. render.ts reads a path with them; templates.ts checks the
 * placeholders.
 */

/** One match per part: groups 1 key, 2 index, 3 filter field, 4 filter text. */
export const OUTPUT_PATH_PARTS = /\.([^.[]+)|\[(\d+)\]|\[\?@(?:\.([A-Za-z_][A-Za-z0-9_]*))?=="([^"]*)"\]/g;

/** The texts of an output path's filters, where its input placeholders are. */
export const pathFilterTemplates = (path: string): string[] => [...path.matchAll(OUTPUT_PATH_PARTS)].flatMap((m) => (m[4] === undefined ? [] : [m[4]]));
