/**
 * Runbook YAML documents shared by the tests of the runbook DSL: the parser's own
 * (tests/unit/runbooks/parse.test.ts) and the published JSON Schema's
 * (tests/unit/runbooks/json-schema.test.ts) read the same text, so both speak for one DSL.
 */

/** A valid runbook that sets every field of the DSL at least once, empty YAML values included. */
export const EVERY_FIELD_RUNBOOK = `
id: phishing-triage
name: Phishing triage
description: Contain a reported phish
version: 3
enabled: false
trigger:
  type: alert
  conditions: { severity: [High, critical], matched_log.host.name: mail-01, score: 7 }
inputs:
  - { name: mailbox, type: string, required: true, description: Target mailbox }
  - { name: dry, type: boolean }
  - { name: note, type: string, required:, description: }
steps:
  - id: is-internal
    type: branch
    when: '{{ trigger.sender_domain == "example.com" }}'
    ui: { x: 0, y: 0 }
  - id: tag
    action: case.tag
    needs: [is-internal]
    when_branch: true
    with: { tags: ['phish', '{{ trigger.rule.id }}'], meta: { by: '{{ inputs.mailbox }}' } }
    timeout_s: 30
    retries: 2
    on_error: continue
    autonomous: true
    ui: { x: 10, y: 20.5 }
  - id: notify
    action: notify.email
    needs: [is-internal, tag]
    when_branch: "false"
    for_each: '{{ trigger.recipients }}'
    with: { to: '{{ item }}' }
    on_error: goto:tag
    approval: { roles: [approver, admin], timeout_h: 1.5, message: Mail the recipients? }
`;
