/**
 * The verdict of an ssh custom action's `effect.exit` on one command result (SPEC.md
 * "Managed containment actions", "Exit and verdict handling": for ssh transports the exit
 * code alone never decides). In this order:
 * - `refusal` wording in stdout or stderr always wins: `vendor_refused`, whatever the exit
 *   code (a cloud CLI answering 0 with a refusal in its output is not a success);
 * - exit 0 is a success;
 * - a non-zero exit whose code and wording match an `already_present` entry is
 *   `vendor_already_present`, an `already_absent` entry `vendor_already_absent` (the
 *   command's own absent-rule wording, such as nft's "No such file or directory");
 * - any other exit is a failure (`command_failed`).
 * Wording is literal text matched ignoring case, never a pattern. The managed layer takes
 * `vendor_already_present` as success of a block only and `vendor_already_absent` of a
 * reversal or read only, so on a block every other non-zero exit fails.
 */
import type { OutcomeVerdict } from './outcome.ts';
import type { CustomEffect } from './spec.ts';

export type SshResult = { exit_code: number; stdout: string; stderr: string };
export type SshVerdict = OutcomeVerdict | { ok: false; type: 'command_failed'; detail: string };

const MAX_DETAIL = 300;
const capped = (line: string): string => (line.length > MAX_DETAIL ? `${line.slice(0, MAX_DETAIL)}…` : line);

export function sshVerdict(exit: NonNullable<CustomEffect['exit']>, result: SshResult): SshVerdict {
  const text = `${result.stdout}\n${result.stderr}`;
  const lower = text.toLowerCase();
  const says = (fragments: readonly string[]) => fragments.find((f) => lower.includes(f.toLowerCase()));
  const detail = (fragment: string) => {
    const line =
      text
        .split('\n')
        .find((l) => l.toLowerCase().includes(fragment.toLowerCase()))
        ?.trim() ?? fragment;
    return capped(line);
  };
  const refused = says(exit.refusal);
  if (refused !== undefined) return { ok: false, type: 'vendor_refused', detail: detail(refused) };
  if (result.exit_code === 0) return { ok: true };
  const match = (entries: NonNullable<CustomEffect['exit']>['already_present']) =>
    entries
      .filter((e) => e.exit_code === result.exit_code)
      .map((e) => says(e.wording))
      .find((f) => f !== undefined);
  const present = match(exit.already_present);
  if (present !== undefined) return { ok: false, type: 'vendor_already_present', detail: detail(present) };
  const absent = match(exit.already_absent);
  if (absent !== undefined) return { ok: false, type: 'vendor_already_absent', detail: detail(absent) };
  const said = lastErrorLine(result.stderr);
  return { ok: false, type: 'command_failed', detail: `exited with ${result.exit_code}${said === null ? '' : `: ${said}`}` };
}

/** The last non-blank line of a command's stderr (why it failed, as a CLI says it), at most 300 characters; null when it wrote none. */
export function lastErrorLine(stderr: string): string | null {
  const line = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .pop();
  return line === undefined ? null : capped(line);
}
