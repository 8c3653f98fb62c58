/**
 * Runbook YAML several suites share.
 */

/** `gated-tag`: one `case.update` step behind an approval gate for `approver`, run by hand on a case. */
export const gatedTagRunbook = `
id: gated-tag
name: gated-tag
version: 1
trigger: { type: manual }
steps:
  - id: tag
    action: case.update
    approval: { roles: [approver] }
    with: { tags_add: ["approved"] }
`;
