/**
 * What the runbook parser needs to know from outside `domain/`: the action registry
 * and the template engine's syntax checks (SPEC.md "Runbooks and runs": validate covers
 * unknown actions and template syntax). Kept apart so the parser stays pure.
 */
export type RunbookCatalog = {
  /** False for unknown actions and for actions of a product that is not installed. */
  isKnownAction: (name: string) => boolean;
  /** The syntax error of a template string, or null when it parses. */
  checkTemplate: (text: string) => string | null;
  /** The syntax error of a `when` condition expression, or null when it parses. */
  checkCondition: (expr: string) => string | null;
};
