/**
 * A lab firewall adapter for the managed containment tests and the containment bench:
 * three custom actions (`custom.lab_waf.block`, `.unblock`, `.status`) over an `http`
 * connection named `waf`, speaking a minimal rule API (`POST /zones/<zone>/rules {ip,
 * note}` answering `{status: done, rule_id}`, a duplicate `{status: failed, message:
 * "duplicate ..."}`; `DELETE` and `GET /zones/<zone>/rules/<id>`, an unknown id
 * `{message: "rule not found"}`), and the response policy binding of `block`/`ip` to them.
 * The servers answering it live with their tests (a stateful receiver, or the bench's
 * indexed peer).
 */

/** The verdict every lab action declares: `done` is success, "duplicate" already present, "not found" already absent. */
export const labOutcome = { output: 'status', success: ['done'], message: 'message', already_present: ['duplicate'], already_absent: ['not found'] };

const common = { transport: 'http', default_connection: 'waf', effect_type: 'notify' };
const status = [
  { name: 'status', path: '$.status', type: 'string' },
  { name: 'message', path: '$.message', type: 'string' },
];

/** The three custom action specs, as `POST /custom-actions {spec}` takes them. */
export const labWafActions = [
  {
    ...common,
    name: 'custom.lab_waf.block',
    title: 'Add a block rule',
    inputs: [
      { name: 'ip', type: 'string', required: true },
      { name: 'zone', type: 'string', required: true },
      { name: 'note', type: 'string' },
    ],
    http: { method: 'POST', path: '/zones/{{ inputs.zone }}/rules', body: { ip: '{{ inputs.ip }}', note: '{{ inputs.note }}' } },
    outputs: [...status, { name: 'rule_id', path: '$.rule_id', type: 'string' }],
    effect: { outcome: labOutcome },
    risk: 'write',
    compensation: { action: 'custom.lab_waf.unblock' },
  },
  {
    ...common,
    name: 'custom.lab_waf.unblock',
    title: 'Delete a block rule',
    inputs: [
      { name: 'rule_id', type: 'string', required: true },
      { name: 'zone', type: 'string', required: true },
    ],
    http: { method: 'DELETE', path: '/zones/{{ inputs.zone }}/rules/{{ inputs.rule_id }}' },
    outputs: status,
    effect: { outcome: labOutcome },
    risk: 'write',
  },
  {
    ...common,
    name: 'custom.lab_waf.status',
    title: 'Read a block rule',
    inputs: [
      { name: 'rule_id', type: 'string', required: true },
      { name: 'zone', type: 'string', required: true },
    ],
    http: { method: 'GET', path: '/zones/{{ inputs.zone }}/rules/{{ inputs.rule_id }}' },
    outputs: [...status, { name: 'mode', path: '$.mode', type: 'string' }],
    effect: { outcome: labOutcome, enforced_output: 'mode', enforced_values: ['block'] },
    risk: 'read',
  },
];

/** The binding of `effectType`/`targetType` to the lab actions on `connection`, in zone `zone`. */
export const labWafBinding = (effectType: string, targetType: string, connection: string, zone: string) => ({
  effect_type: effectType,
  target_type: targetType,
  adapter_id: 'lab_waf',
  block_action: 'custom.lab_waf.block',
  unblock_action: 'custom.lab_waf.unblock',
  status_action: 'custom.lab_waf.status',
  connection_name: connection,
  parameters: { zone },
});
