/**
 * The action registry over HTTP on every engine (SPEC.md "Actions and connections":
 * GET /actions; "Runbooks and runs": validation refuses unknown actions, actions of a
 * product not installed, and literal inputs that break the action's schema).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callAs, startInProcessService, testPerson, type InProcessService } from '../support/in-process-service.ts';
import { e2eEngines } from '../support/service-process.ts';

const viewer = testPerson('viewer@example.com', [{ team: 'blue', role: 'viewer' }]);
const nobody = testPerson('nobody@example.com', []);

const runbook = (steps: string) => `
id: registry-check
name: Registry check
version: 1
trigger: { type: manual }
steps:
${steps}`;

describe.each(e2eEngines)('action registry on $name', ({ server }) => {
  let svc: InProcessService;
  let withDetector: InProcessService;
  beforeAll(async () => {
    [svc, withDetector] = await Promise.all([
      startInProcessService({ server }),
      startInProcessService({ server }, { extraEnv: { SVC_INSTALLED_PRODUCTS: 'detector' } }),
    ]);
  });
  afterAll(async () => {
    await svc?.close();
    await withDetector?.close();
  });

  const validate = async (s: InProcessService, steps: string) => {
    const res = await callAs(s, viewer, 'POST', '/runbooks/validate', { yaml_text: runbook(steps) });
    expect(res.status, res.text).toBe(200);
    return res.body.errors as { loc: (string | number)[]; msg: string }[];
  };

  it("GET /actions answers SPEC.md's 34 built-ins and the three identity actions with JSON Schemas, connection kind, implemented and risk", async () => {
    const res = await callAs(svc, viewer, 'GET', '/actions');
    expect(res.status, res.text).toBe(200);
    expect(Array.isArray(res.body)).toBe(true);
    expect(res.body).toHaveLength(37);
    const caseUpdate = res.body.find((a: { name: string }) => a.name === 'case.update');
    expect(caseUpdate).toEqual({
      name: 'case.update',
      connection_kind: 'internal',
      implemented: true,
      risk: 'write',
      input_schema: expect.objectContaining({
        type: 'object',
        additionalProperties: false,
        properties: expect.objectContaining({ tags_add: expect.objectContaining({ type: 'array' }) }),
      }),
      output_schema: expect.objectContaining({ type: 'object', required: ['case_id', 'changed'] }),
    });
    expect(res.body.filter((a: { implemented: boolean }) => a.implemented).map((a: { name: string }) => a.name)).toEqual([
      'ai.agent',
      'ai.triage',
      'banlist.block',
      'banlist.status',
      'banlist.unblock',
      'case.update',
      'detector.add_exception',
      'detector.comment_alert',
      'detector.get_alert',
      'detector.snooze_rule',
      'enrich.reputation_a',
      'enrich.reputation_b',
      'http.request',
      'mcp.call',
      'notify.chat_a',
      'notify.chat_b',
      'notify.email',
      'notify.pager_a',
      'notify.pager_b',
      'notify.ticket_a',
      'notify.ticket_b',
      'notify.webhook',
      'pipeline.await_confirmation',
      'pipeline.deploy_request',
      'response.domain_block',
      'response.domain_status',
      'response.domain_unblock',
      'response.host_isolate',
      'response.host_release',
      'response.host_status',
      'response.identity_disable',
      'response.identity_enable',
      'response.identity_status',
      'response.ip_block',
      'response.ip_status',
      'response.ip_unblock',
      'ssh.command',
    ]);
    expect(res.body.find((a: { name: string }) => a.name === 'pipeline.deploy_request')).toMatchObject({
      connection_kind: 'pipeline',
      implemented: true,
      risk: 'write',
      input_schema: { properties: { kind: { enum: ['quarantine_source', 'drop_source', 'sample_source', 'fork_to_lake'] } } },
    });
  });

  it('needs a caller with read permission', async () => {
    expect((await callAs(svc, nobody, 'GET', '/actions')).status).toBe(403);
  });

  it('refuses an unknown action and a literal input that breaks the schema, naming the step and field', async () => {
    const errors = await validate(
      svc,
      `
  - id: tag
    action: case.update
    with: { tags_add: "one", colour: red, comment: "{{ trigger.rule.title }}" }
  - id: shell
    action: ssh.command
    with: { command: "rm -rf /", args: ["{{ inputs.x }}"] }
  - id: nope
    action: case.delete`,
    );
    expect(errors).toEqual(
      expect.arrayContaining([
        { loc: ['steps', 0, 'with', 'tags_add'], msg: expect.any(String) },
        { loc: ['steps', 0, 'with', 'colour'], msg: expect.any(String) },
        { loc: ['steps', 1, 'with', 'command'], msg: 'must match ^[A-Za-z0-9_./-]+$' },
        { loc: ['steps', 2, 'action'], msg: "unknown action 'case.delete'" },
      ]),
    );
    expect(errors).toHaveLength(4);
  });

  it('accepts templated values the schema cannot judge before run time', async () => {
    expect(
      await validate(
        svc,
        `
  - id: tag
    action: case.update
    with: { tags_add: "{{ trigger.tags }}", severity: "{{ inputs.severity }}" }
  - id: call
    action: http.request
    with: { connection: api, method: "{{ inputs.method }}", path: /x }`,
      ),
    ).toEqual([]);
  });

  it('refuses detector actions until the detector product is installed', async () => {
    const steps = `
  - id: look
    action: detector.get_alert
    with: { alert_id: "{{ trigger.external_id }}" }`;
    expect(await validate(svc, steps)).toEqual([
      { loc: ['steps', 0, 'action'], msg: expect.stringMatching(/needs the detector product, which is not installed/) },
    ]);
    expect(await validate(withDetector, steps)).toEqual([]);
    expect(await validate(withDetector, steps.replace('alert_id', 'alert'))).toEqual([
      { loc: ['steps', 0, 'with', 'alert_id'], msg: expect.any(String) },
      { loc: ['steps', 0, 'with', 'alert'], msg: expect.any(String) },
    ]);
  });
});
