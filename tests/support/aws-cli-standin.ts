/**
 * A stand-in for the AWS CLI v2 (`aws ec2 ...` security-group commands), run over the
 * real OpenSSH server for the cloud_security_group pack: it keeps security groups in a
 * JSON file and answers as the CLI does (shared/fixtures/vendors/aws_ec2_cli): the
 * answer as JSON on stdout, indented by 4, after `--query` (a JMESPath subset: fields,
 * `[n]`, `[?filter]`, `[]`, `|`, `&&`, `||`, `!`, comparisons, `length`, `contains`,
 * `{key: expr}`, raw strings and JSON literals); a service error as the botocore line
 * `An error occurred (<Code>) when calling the <Operation> operation: <message>` on stderr
 * with exit 254; bad parameters or an unparsable query exit 252, a missing region 253.
 * `revoke-security-group-ingress` of a rule the group lacks answers
 * InvalidPermission.NotFound, or, for a group switched to behave as a default-VPC group,
 * exit 0 with `{"Return": true, "UnknownIpPermissions": [...]}`; `authorize` of a rule
 * already there answers InvalidPermission.Duplicate; an unknown group id answers
 * InvalidGroup.NotFound. Every invocation's argv is logged.
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const script = (dir: string) => String.raw`#!${process.execPath}
const fs = require('node:fs');
const state = ${JSON.stringify(join(dir, 'groups.json'))};
const log = ${JSON.stringify(join(dir, 'argv.log'))};
const failure = ${JSON.stringify(join(dir, 'fail-next.json'))};
const argv = process.argv.slice(2);
fs.appendFileSync(log, JSON.stringify(argv) + '\n');
const BT = '\x60';

const usage = (msg) => {
  process.stderr.write('\nusage: aws [options] <command> <subcommand> [<subcommand> ...] [parameters]\nTo see help text, you can run:\n\n  aws help\n  aws <command> help\n  aws <command> <subcommand> help\n\naws: error: ' + msg + '\n');
  process.exit(252);
};
const serviceError = (operation, code, message) => {
  process.stderr.write('\nAn error occurred (' + code + ') when calling the ' + operation + ' operation: ' + message + '\n');
  process.exit(254);
};

// JMESPath, the subset the pack's queries use; precedence as in the specification.
function lex(s) {
  const out = [];
  let p = 0;
  const quoted = (close, read) => {
    let q = p + 1, raw = '';
    while (q < s.length && s[q] !== close) {
      if (s[q] === '\\' && s[q + 1] === close) { raw += close; q += 2; } else raw += s[q++];
    }
    if (q >= s.length) throw new Error('unclosed literal at ' + p);
    out.push({ t: 'lit', v: read(raw), p });
    p = q + 1;
  };
  while (p < s.length) {
    const c = s[p], two = s.slice(p, p + 2);
    if (/\s/.test(c)) p++;
    else if (/[A-Za-z_]/.test(c)) { const m = /^[A-Za-z0-9_]+/.exec(s.slice(p))[0]; out.push({ t: 'id', v: m, p }); p += m.length; }
    else if (/[-0-9]/.test(c)) { const m = /^-?[0-9]+/.exec(s.slice(p))[0]; out.push({ t: 'num', v: Number(m), p }); p += m.length; }
    else if (c === "'") quoted("'", (raw) => raw);
    else if (c === BT) quoted(BT, (raw) => JSON.parse(raw));
    else if (['==', '!=', '<=', '>='].includes(two)) { out.push({ t: 'cmp', v: two, p }); p += 2; }
    else if (['||', '&&', '[?', '[]'].includes(two)) { out.push({ t: two, p }); p += 2; }
    else if (c === '<' || c === '>') { out.push({ t: 'cmp', v: c, p }); p++; }
    else if ('.[](){},:|!@'.includes(c)) { out.push({ t: c, p }); p++; }
    else throw new Error('unknown token ' + c + ' at ' + p);
  }
  out.push({ t: 'eof', p });
  return out;
}
const POWER = { '|': 1, '||': 2, '&&': 3, cmp: 5, '[]': 9, '[?': 21, '.': 40, '[': 55 };
function parse(text) {
  const tokens = lex(text);
  let i = 0;
  const peek = () => tokens[i];
  const power = (k) => POWER[k.t] ?? 0;
  const take = (t) => { const k = tokens[i++]; if (k.t !== t) throw new Error('expected ' + t + ' at ' + k.p); return k; };
  const expression = (rbp) => {
    let left = nud(tokens[i++]);
    while (rbp < power(peek())) left = led(tokens[i++], left);
    return left;
  };
  const projected = (bp) => {
    if (power(peek()) < 10) return { k: 'cur' };
    if (peek().t === '.') { i++; return expression(bp); }
    return expression(bp);
  };
  const filter = (left) => { const cond = expression(0); take(']'); return { k: 'filter', l: left, cond, r: projected(21) }; };
  const nud = (k) => {
    switch (k.t) {
      case 'lit': return { k: 'lit', v: k.v };
      case '@': return { k: 'cur' };
      case '!': return { k: 'not', e: expression(45) };
      case '(': { const e = expression(0); take(')'); return e; }
      case '[?': return filter({ k: 'cur' });
      case '[]': return { k: 'flatten', l: { k: 'cur' }, r: projected(9) };
      case 'id': {
        if (peek().t !== '(') return { k: 'field', name: k.v };
        i++;
        const args = [];
        while (peek().t !== ')') { args.push(expression(0)); if (peek().t === ',') i++; }
        i++;
        return { k: 'fn', name: k.v, args };
      }
      case '{': {
        const pairs = [];
        for (;;) {
          const key = take('id').v;
          take(':');
          pairs.push([key, expression(0)]);
          const next = tokens[i++];
          if (next.t === '}') return { k: 'hash', pairs };
          if (next.t !== ',') throw new Error('expected , or } at ' + next.p);
        }
      }
    }
    throw new Error('unexpected token at ' + k.p);
  };
  const led = (k, left) => {
    switch (k.t) {
      case '.': return { k: 'sub', l: left, r: expression(40) };
      case '[': { const n = take('num').v; take(']'); return { k: 'index', l: left, n }; }
      case '[?': return filter(left);
      case '[]': return { k: 'flatten', l: left, r: projected(9) };
      case '|': return { k: 'pipe', l: left, r: expression(1) };
      case '||': return { k: 'or', l: left, r: expression(2) };
      case '&&': return { k: 'and', l: left, r: expression(3) };
      case 'cmp': return { k: 'cmp', op: k.v, l: left, r: expression(5) };
    }
    throw new Error('unexpected token at ' + k.p);
  };
  const ast = expression(0);
  if (peek().t !== 'eof') throw new Error('unexpected token at ' + peek().p);
  return ast;
}
const truthy = (v) => !(v === null || v === false || v === '' || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && v !== null && Object.keys(v).length === 0));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
function evaluate(n, d) {
  const list = (v) => (Array.isArray(v) ? v : null);
  switch (n.k) {
    case 'lit': return n.v;
    case 'cur': return d;
    case 'field': return d !== null && typeof d === 'object' && !Array.isArray(d) && Object.hasOwn(d, n.name) ? d[n.name] : null;
    case 'sub': return evaluate(n.r, evaluate(n.l, d));
    case 'index': { const l = list(evaluate(n.l, d)); return l === null ? null : (l[n.n < 0 ? l.length + n.n : n.n] ?? null); }
    case 'filter': { const l = list(evaluate(n.l, d)); return l === null ? null : l.filter((x) => truthy(evaluate(n.cond, x))).map((x) => evaluate(n.r, x)).filter((x) => x !== null); }
    case 'flatten': { const l = list(evaluate(n.l, d)); return l === null ? null : l.flat(1).map((x) => evaluate(n.r, x)).filter((x) => x !== null); }
    case 'pipe': return evaluate(n.r, evaluate(n.l, d));
    case 'or': { const l = evaluate(n.l, d); return truthy(l) ? l : evaluate(n.r, d); }
    case 'and': { const l = evaluate(n.l, d); return truthy(l) ? evaluate(n.r, d) : l; }
    case 'not': return !truthy(evaluate(n.e, d));
    case 'hash': return d === null ? null : Object.fromEntries(n.pairs.map(([key, e]) => [key, evaluate(e, d)]));
    case 'cmp': {
      const l = evaluate(n.l, d), r = evaluate(n.r, d);
      if (n.op === '==') return same(l, r);
      if (n.op === '!=') return !same(l, r);
      if (typeof l !== 'number' || typeof r !== 'number') return null;
      return n.op === '<' ? l < r : n.op === '<=' ? l <= r : n.op === '>' ? l > r : l >= r;
    }
    case 'fn': {
      const args = n.args.map((a) => evaluate(a, d));
      if (n.name === 'length' && (typeof args[0] === 'string' || Array.isArray(args[0]))) return args[0].length;
      if (n.name === 'contains' && Array.isArray(args[0])) return args[0].some((x) => same(x, args[1]));
      if (n.name === 'contains' && typeof args[0] === 'string' && typeof args[1] === 'string') return args[0].includes(args[1]);
      throw new Error('invalid-type or unknown function: ' + n.name);
    }
  }
}

const globals = {};
const params = {};
const positional = [];
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (!a.startsWith('--')) { positional.push(a); continue; }
  const eq = a.indexOf('=');
  const name = eq === -1 ? a.slice(2) : a.slice(2, eq);
  if (name === 'no-cli-pager') { globals[name] = true; continue; }
  const value = eq === -1 ? argv[++i] : a.slice(eq + 1);
  if (value === undefined) usage('argument --' + name + ': expected one argument');
  if (['region', 'profile', 'output', 'query'].includes(name)) globals[name] = value;
  else params[name] = value;
}
if (positional[0] !== 'ec2') usage('argument command: Invalid choice, valid choices are: ec2 (in this stand-in)');
const operations = {
  'revoke-security-group-ingress': ['RevokeSecurityGroupIngress', ['group-id', 'ip-permissions']],
  'authorize-security-group-ingress': ['AuthorizeSecurityGroupIngress', ['group-id', 'ip-permissions']],
  'describe-security-groups': ['DescribeSecurityGroups', ['group-ids']],
};
const [operation, known] = operations[positional[1]] ?? usage('argument operation: Invalid choice: ' + positional[1]);
const unknown = Object.keys(params).filter((p) => !known.includes(p));
if (unknown.length > 0 || positional.length > 2) usage('Unknown options: ' + [...unknown.map((p) => '--' + p), ...positional.slice(2)].join(', '));
if ((globals.output ?? 'json') !== 'json') usage('only --output json in this stand-in');
let query = null;
if (globals.query !== undefined) {
  try { query = parse(globals.query); } catch (e) { process.stderr.write('\nBad value for --query ' + globals.query + ': ' + e.message + '\n'); process.exit(252); }
}
if (!globals.region) { process.stderr.write('\nYou must specify a region. You can also configure your region by running "aws configure".\n'); process.exit(253); }

if (fs.existsSync(failure)) {
  const f = JSON.parse(fs.readFileSync(failure, 'utf8'));
  fs.rmSync(failure);
  serviceError(operation, f.code, f.message);
}
const db = JSON.parse(fs.readFileSync(state, 'utf8'));
const groupOf = (id) => {
  if (!/^sg-[0-9a-f]{8,17}$/.test(id)) serviceError(operation, 'InvalidGroupId.Malformed', 'Invalid id: "' + id + '" (expecting "sg-...")');
  return db.groups.find((g) => g.id === id) ?? serviceError(operation, 'InvalidGroup.NotFound', "The security group '" + id + "' does not exist");
};
const CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;
const wanted = () => {
  let permissions;
  try { permissions = JSON.parse(params['ip-permissions']); } catch { usage("Error parsing parameter '--ip-permissions': Invalid JSON"); }
  return permissions.flatMap((p) => (p.IpRanges ?? []).map((r) => {
    const m = CIDR.exec(r.CidrIp ?? '');
    if (!m || m.slice(1, 5).some((o) => Number(o) > 255) || Number(m[5]) > 32) serviceError(operation, 'InvalidParameterValue', 'CIDR block ' + r.CidrIp + ' is malformed');
    return { protocol: p.IpProtocol, from: p.FromPort, to: p.ToPort, cidr: r.CidrIp, description: r.Description };
  }));
};
const sameRule = (a, b) => a.protocol === b.protocol && a.from === b.from && a.to === b.to && a.cidr === b.cidr;
const ruleView = (g, r, extra) => ({ SecurityGroupRuleId: r.id, GroupId: g.id, ...extra, IsEgress: false, IpProtocol: r.protocol, FromPort: r.from, ToPort: r.to, CidrIpv4: r.cidr, ...(r.description ? { Description: r.description } : {}) });
const permissionView = (r) => ({ IpProtocol: r.protocol, FromPort: r.from, ToPort: r.to, UserIdGroupPairs: [], IpRanges: [{ CidrIp: r.cidr }], Ipv6Ranges: [], PrefixListIds: [] });
let answer;
if (operation === 'DescribeSecurityGroups') {
  const g = groupOf(params['group-ids']);
  const permissions = [];
  for (const r of g.rules) {
    const existing = permissions.find((p) => p.IpProtocol === r.protocol && p.FromPort === r.from && p.ToPort === r.to);
    const range = { CidrIp: r.cidr, ...(r.description ? { Description: r.description } : {}) };
    if (existing) existing.IpRanges.push(range);
    else permissions.push(r.protocol === '-1' ? { IpProtocol: '-1', IpRanges: [range], Ipv6Ranges: [], PrefixListIds: [], UserIdGroupPairs: [] } : { FromPort: r.from, IpProtocol: r.protocol, IpRanges: [range], Ipv6Ranges: [], PrefixListIds: [], ToPort: r.to, UserIdGroupPairs: [] });
  }
  answer = { SecurityGroups: [{ GroupId: g.id, IpPermissionsEgress: [{ IpProtocol: '-1', IpRanges: [{ CidrIp: '0.0.0.0/0' }], Ipv6Ranges: [], PrefixListIds: [], UserIdGroupPairs: [] }], VpcId: g.vpc_id, SecurityGroupArn: 'arn:aws:ec2:' + globals.region + ':123456789012:security-group/' + g.id, OwnerId: '123456789012', GroupName: g.name, Description: g.name, IpPermissions: permissions }] };
} else if (operation === 'RevokeSecurityGroupIngress') {
  const g = groupOf(params['group-id']);
  const asked = wanted();
  const missing = asked.filter((w) => !g.rules.some((r) => sameRule(r, w)));
  if (missing.length > 0 && !g.default_vpc) serviceError(operation, 'InvalidPermission.NotFound', 'The specified rule does not exist in this security group.');
  const revoked = g.rules.filter((r) => asked.some((w) => sameRule(r, w)));
  g.rules = g.rules.filter((r) => !revoked.includes(r));
  answer = { Return: true, ...(missing.length > 0 ? { UnknownIpPermissions: missing.map(permissionView) } : {}), ...(revoked.length > 0 ? { RevokedSecurityGroupRules: revoked.map((r) => ruleView(g, r, {})) } : {}) };
} else {
  const g = groupOf(params['group-id']);
  const asked = wanted();
  const there = asked.find((w) => g.rules.some((r) => sameRule(r, w)));
  if (there) serviceError(operation, 'InvalidPermission.Duplicate', 'the specified rule "peer: ' + there.cidr + ', ' + String(there.protocol).toUpperCase() + ', from port: ' + there.from + ', to port: ' + there.to + ', ALLOW" already exists');
  const added = asked.map((w) => ({ ...w, id: 'sgr-' + (db.next++).toString(16).padStart(17, '0') }));
  g.rules.push(...added);
  answer = { Return: true, SecurityGroupRules: added.map((r) => ruleView(g, r, { GroupOwnerId: '123456789012' })) };
}
fs.writeFileSync(state, JSON.stringify(db));
let shown = answer;
if (query !== null) {
  try { shown = evaluate(query, answer); } catch (e) { process.stderr.write('\n' + e.message + '\n'); process.exit(255); }
}
process.stdout.write(JSON.stringify(shown, null, 4) + '\n');
`;

/** An ingress rule of a stand-in group: `port` opens that one port; protocol `-1` is all traffic (no port). */
export type StandInRule = { protocol: string; port?: number; cidr: string; description?: string };
type StoredRule = { id: string; protocol: string; from?: number; to?: number; cidr: string; description?: string };
type StoredGroup = { id: string; name: string; vpc_id: string; default_vpc: boolean; rules: StoredRule[] };

export type AwsCliStandIn = {
  /** Absolute path of the executable (the pack's `ssh.command` in the test's registry copy). */
  path: string;
  /** The ingress rules group `groupId` holds now, each with its rule id; [] for a missing group. */
  rules: (groupId: string) => (StandInRule & { id: string })[];
  /** Adds a rule directly, as an operator would in the console. */
  allow: (groupId: string, rule: StandInRule) => void;
  /** Makes the group answer as a default-VPC group: a revoke of a rule it lacks is exit 0 with `UnknownIpPermissions`. */
  defaultVpc: (groupId: string, on: boolean) => void;
  /** Deletes the group: every command naming it answers InvalidGroup.NotFound. */
  deleteGroup: (groupId: string) => void;
  /** The next invocation answers the service error `code` with `message` (exit 254), whatever it asks. */
  failNext: (code: string, message: string) => void;
  /** The argv of every invocation so far. */
  invocations: () => string[][];
  close: () => void;
};

/** Writes the stand-in executable and its state: `groups` with their ingress rules, each group in its own non-default VPC. */
export function createAwsCliStandIn(groups: { id: string; rules: StandInRule[] }[]): AwsCliStandIn {
  const dir = mkdtempSync(join(tmpdir(), 'svc-aws-cli-'));
  chmodSync(dir, 0o755);
  const path = join(dir, 'aws');
  const statePath = join(dir, 'groups.json');
  writeFileSync(path, script(dir));
  chmodSync(path, 0o755);
  // Rule ids made here pad with 'a', the script's own (from `next` in the state) with '0', so the two never meet.
  let next = 1;
  const stored = (rule: StandInRule): StoredRule => ({
    id: `sgr-${(next++).toString(16).padStart(17, 'a')}`,
    protocol: rule.protocol,
    ...(rule.port === undefined ? {} : { from: rule.port, to: rule.port }),
    cidr: rule.cidr,
    ...(rule.description === undefined ? {} : { description: rule.description }),
  });
  const read = () => JSON.parse(readFileSync(statePath, 'utf8')) as { next: number; groups: StoredGroup[] };
  const change = (groupId: string, edit: (group: StoredGroup, db: { groups: StoredGroup[] }) => void) => {
    const db = read();
    const group = db.groups.find((g) => g.id === groupId);
    if (!group) throw new Error(`no stand-in group ${groupId}`);
    edit(group, db);
    writeFileSync(statePath, JSON.stringify(db));
  };
  writeFileSync(
    statePath,
    JSON.stringify({
      next: 0x100,
      groups: groups.map(
        (g, i): StoredGroup => ({ id: g.id, name: `svc-test-${i}`, vpc_id: `vpc-0${i}1f2e3d4c5b6a7980`, default_vpc: false, rules: g.rules.map(stored) }),
      ),
    }),
  );
  return {
    path,
    rules: (groupId) =>
      (read().groups.find((g) => g.id === groupId)?.rules ?? []).map((r) => ({
        id: r.id,
        protocol: r.protocol,
        ...(r.from === undefined ? {} : { port: r.from }),
        cidr: r.cidr,
        ...(r.description === undefined ? {} : { description: r.description }),
      })),
    allow: (groupId, rule) => change(groupId, (g) => g.rules.push(stored(rule))),
    defaultVpc: (groupId, on) =>
      change(groupId, (g) => {
        g.default_vpc = on;
      }),
    deleteGroup: (groupId) =>
      change(groupId, (g, db) => {
        db.groups = db.groups.filter((other) => other !== g);
      }),
    failNext: (code, message) => writeFileSync(join(dir, 'fail-next.json'), JSON.stringify({ code, message })),
    invocations: () =>
      readFileSync(join(dir, 'argv.log'), { encoding: 'utf8', flag: 'a+' })
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as string[]),
    close: () => rmSync(dir, { recursive: true, force: true }),
  };
}
