/**
 * The verdict of an ssh custom action's `effect.exit` (domain/custom-actions/ssh-verdict.ts;
 * SPEC.md "Exit and verdict handling": the exit code alone never decides), with the wording
 * of the real tools: nft's absent rule, iptables' bad rule, the AWS CLI's exit 254 service
 * errors (../shared/fixtures/vendors/aws_ec2_cli/cli_edge_behaviour.json).
 */
import { describe, expect, it } from 'vitest';
import { sshVerdict } from '../../../domain/custom-actions/ssh-verdict.ts';

const packetFilter = {
  already_present: [],
  already_absent: [{ exit_code: 1, wording: ['No such file or directory', 'Bad rule (does a matching rule exist in that chain?)'] }],
  refusal: [],
};
const cloudCli = {
  already_present: [{ exit_code: 254, wording: ['InvalidPermission.Duplicate'] }],
  already_absent: [{ exit_code: 254, wording: ['InvalidPermission.NotFound'] }],
  refusal: ['UnknownIpPermissions'],
};
const run = (exit_code: number, stderr = '', stdout = '') => ({ exit_code, stdout, stderr });

describe('sshVerdict', () => {
  it('reads a packet filter: exit 1 is already absent only with the absent-rule wording', () => {
    expect(sshVerdict(packetFilter, run(0))).toEqual({ ok: true });
    expect(
      sshVerdict(packetFilter, run(1, 'Error: Could not process rule: No such file or directory\ndelete element inet svc blocklist { 203.0.113.7 }')),
    ).toEqual({
      ok: false,
      type: 'vendor_already_absent',
      detail: 'Error: Could not process rule: No such file or directory',
    });
    expect(sshVerdict(packetFilter, run(1, 'iptables: Bad rule (does a matching rule exist in that chain?).'))).toMatchObject({
      type: 'vendor_already_absent',
    });
    expect(sshVerdict(packetFilter, run(1, 'Error: syntax error, unexpected newline'))).toEqual({
      ok: false,
      type: 'command_failed',
      detail: 'exited with 1: Error: syntax error, unexpected newline',
    });
    expect(sshVerdict(packetFilter, run(2, 'No such file or directory'))).toMatchObject({ type: 'command_failed' });
  });

  it('reads a cloud CLI: exit 254 by its service error, a missing group fails, and a refusal in the output wins even on exit 0', () => {
    const duplicate =
      'An error occurred (InvalidPermission.Duplicate) when calling the AuthorizeSecurityGroupIngress operation: the specified rule already exists';
    expect(sshVerdict(cloudCli, run(254, duplicate))).toMatchObject({ ok: false, type: 'vendor_already_present' });
    expect(
      sshVerdict(cloudCli, run(254, 'An error occurred (InvalidPermission.NotFound) when calling the RevokeSecurityGroupIngress operation')),
    ).toMatchObject({
      type: 'vendor_already_absent',
    });
    expect(
      sshVerdict(
        cloudCli,
        run(254, "An error occurred (InvalidGroup.NotFound) when calling the RevokeSecurityGroupIngress operation: The security group 'sg-1' does not exist"),
      ),
    ).toMatchObject({
      type: 'command_failed',
    });
    expect(sshVerdict(cloudCli, run(0, '', '{"Return": false, "UnknownIpPermissions": [{"IpProtocol": "-1"}]}'))).toMatchObject({
      ok: false,
      type: 'vendor_refused',
    });
  });
});
