/**
 * A stand-in for the ban-list product's host CLI (`cscli decisions ...`, CrowdSec), run
 * over the real OpenSSH server: it keeps decisions in a JSON file and prints what the
 * real CLI prints (shared/fixtures/vendors/crowdsec): `decisions list -o json` gives the
 * alerts array with `decisions[]` (or `[]`), `add` answers "Decision successfully added"
 * on stderr and prints no id, an allowlisted value is refused unless
 * `--bypass-allowlist`, `delete --id` of a missing id fails. Every invocation's argv is
 * logged, so a test can see exactly what was sent.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const script = (dir: string) => `#!${process.execPath}
const fs = require('node:fs');
const state = ${JSON.stringify(join(dir, 'decisions.json'))};
const log = ${JSON.stringify(join(dir, 'argv.log'))};
const allow = ${JSON.stringify(join(dir, 'allowlist.json'))};
const simulation = ${JSON.stringify(join(dir, 'simulation'))};
const argv = process.argv.slice(2);
fs.appendFileSync(log, JSON.stringify(argv) + '\\n');
const read = () => (fs.existsSync(state) ? JSON.parse(fs.readFileSync(state, 'utf8')) : { next: 1, alerts: [] });
const flag = (name) => { const i = argv.indexOf(name); return i === -1 ? undefined : argv[i + 1]; };
const fail = (msg) => { process.stderr.write('Error: ' + msg + '\\n'); process.exit(1); };
if (argv[0] !== 'decisions') fail('unknown command');
const db = read();
if (argv[1] === 'add') {
  const ip = flag('--ip'); const range = flag('--range'); const value = ip ?? range;
  if (!value) fail('cscli decisions add: missing arguments, a value is required (--ip, --range or --scope and --value)');
  const duration = flag('--duration') ?? '4h';
  if (!/^(\\d+h)?(\\d+m)?(\\d+s)?$/.test(duration) || duration === '') fail('cscli decisions add: invalid argument "' + duration + '" for "--duration" flag');
  const allowlist = fs.existsSync(allow) ? JSON.parse(fs.readFileSync(allow, 'utf8')) : [];
  if (allowlist.includes(value) && !argv.includes('--bypass-allowlist')) fail('cscli decisions add: ' + value + ' is allowlisted by item ' + value + ' from svc-tests, use --bypass-allowlist to add the decision anyway');
  const reason = flag('--reason') ?? 'manual';
  const id = db.next++;
  const scope = ip ? 'Ip' : 'Range';
  db.alerts.push({ id, capacity: 0, created_at: new Date().toISOString(), decisions: [{ duration, id, origin: 'cscli', scenario: reason, scope, simulated: fs.existsSync(simulation), type: flag('--type') ?? 'ban', value }], events: [], events_count: 1, labels: null, leakspeed: '0', machine_id: 'svc-tests', message: reason, scenario: reason, scenario_hash: '', scenario_version: '', simulated: false, source: { scope, value }, start_at: new Date().toISOString(), stop_at: new Date().toISOString() });
  fs.writeFileSync(state, JSON.stringify(db));
  process.stderr.write('Decision successfully added\\n');
} else if (argv[1] === 'list') {
  if (flag('-o') !== 'json') fail('only -o json in this stand-in');
  // Like the real CLI: only the newest --limit alerts (default 100, 0 for all).
  const limit = Number(flag('--limit') ?? 100);
  const ip = flag('--ip'); const range = flag('--range');
  const alerts = db.alerts
    .map((a) => ({ ...a, decisions: a.decisions.filter((d) => (!ip || d.value === ip) && (!range || d.value === range)) }))
    .filter((a) => a.decisions.length > 0)
    .slice(limit === 0 ? 0 : -limit);
  process.stdout.write(JSON.stringify(alerts, null, 2) + '\\n');
} else if (argv[1] === 'delete') {
  const raw = flag('--id');
  if (!/^\\d+$/.test(raw ?? '')) fail("id '" + raw + "' is not an integer");
  const id = Number(raw);
  if (!db.alerts.some((a) => a.decisions.some((d) => d.id === id))) fail('unable to delete decision: API error: decision with id \\'' + id + '\\' doesn\\'t exist: unable to delete');
  db.alerts = db.alerts.map((a) => ({ ...a, decisions: a.decisions.filter((d) => d.id !== id) })).filter((a) => a.decisions.length > 0);
  fs.writeFileSync(state, JSON.stringify(db));
  process.stderr.write('1 decision(s) deleted\\n');
} else fail('unknown decisions subcommand');
`;

export type CscliStandIn = {
  /** Absolute path of the executable (the connection's `config.cscli`). */
  path: string;
  /** Every decision it holds now. */
  decisions: () => { id: number; value: string; scenario: string; duration: string; type: string }[];
  /** The argv of every invocation so far. */
  invocations: () => string[][];
  /** Values `decisions add` refuses unless `--bypass-allowlist` is given. */
  allowlist: (values: string[]) => void;
  /** Adds `count` older bans directly to its state, as a busy host has; answers their ids. */
  seed: (count: number) => number[];
  /** Simulation mode on: new decisions are recorded `simulated: true` (nothing is enforced). */
  simulation: (on: boolean) => void;
  close: () => void;
};

export function createCscliStandIn(): CscliStandIn {
  const dir = mkdtempSync(join(tmpdir(), 'svc-cscli-'));
  chmodSync(dir, 0o755);
  const path = join(dir, 'cscli');
  writeFileSync(path, script(dir));
  chmodSync(path, 0o755);
  const state = () => {
    try {
      return JSON.parse(readFileSync(join(dir, 'decisions.json'), 'utf8')) as { alerts: { decisions: any[] }[] };
    } catch {
      return { alerts: [] };
    }
  };
  return {
    path,
    decisions: () => state().alerts.flatMap((a) => a.decisions),
    invocations: () => {
      try {
        return readFileSync(join(dir, 'argv.log'), 'utf8')
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as string[]);
      } catch {
        return [];
      }
    },
    seed: (count) => {
      const current = JSON.parse(readFileSync(join(dir, 'decisions.json'), { encoding: 'utf8', flag: 'a+' }) || '{"next":1,"alerts":[]}') as {
        next: number;
        alerts: any[];
      };
      const ids: number[] = [];
      for (let i = 0; i < count; i++) {
        const id = current.next++;
        ids.push(id);
        const value = `198.18.${Math.floor(id / 250)}.${id % 250}`;
        current.alerts.push({
          id,
          decisions: [{ duration: '1h', id, origin: 'crowdsec', scenario: 'crowdsecurity/ssh-bf', scope: 'Ip', simulated: false, type: 'ban', value }],
          scenario: 'crowdsecurity/ssh-bf',
          source: { scope: 'Ip', value },
        });
      }
      writeFileSync(join(dir, 'decisions.json'), JSON.stringify(current));
      return ids;
    },
    allowlist: (values) => writeFileSync(join(dir, 'allowlist.json'), JSON.stringify(values)),
    simulation: (on) => (on ? writeFileSync(join(dir, 'simulation'), '') : rmSync(join(dir, 'simulation'), { force: true })),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
