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

/** A manual runbook `id` with one `note` step: a `case.update` that comments `comment` on the case it runs on. */
export const manualNoteRunbook = (id: string, comment: string) => `
id: ${id}
name: ${id}
trigger:
  type: manual
steps:
  - id: note
    action: case.update
    with:
      comment: "${comment}"
`;
