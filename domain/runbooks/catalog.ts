/**
 * What the runbook parser needs to know from outside `domain/`: the action registry
 * and the template engine's syntax checks (SPEC.md "Runbooks and runs": validate covers
 * schema, unknown actions, actions of a product not installed and template syntax).
 * Kept apart so the parser stays pure.
 */
export type RunbookCatalog = {
  /** Why a step may not use `name` (unknown, or its product is not installed), or null. */
  actionProblem: (name: string) => string | null;
  /**
   * Problems of a step's `with` against the action's input schema, each at `path` below
   * `with`; templated values are left to run time. Unknown actions: none.
   */
  checkInput: (name: string, withMap: Record<string, unknown>) => { path: (string | number)[]; msg: string }[];
  /** The syntax error of a template string, or null when it parses. */
  checkTemplate: (text: string) => string | null;
  /** The syntax error of a `when` condition expression, or null when it parses. */
  checkCondition: (expr: string) => string | null;
};
