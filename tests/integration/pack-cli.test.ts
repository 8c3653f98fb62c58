/**
 * `svc pack` on real files (runtime/cli/pack.ts; docs/integration-packs.md "Publishing
 * packs: svc pack"): a publisher's whole round in a temporary folder (keygen, build,
 * sign, index, verify with the public key), what each command refuses, a tampered copy
 * refused by verify, a stale index caught, and the shipped `packs/` folder: every pack
 * available and `packs/index.yaml` exactly what `svc pack index` writes now, so CI fails
 * on a shipped pack or index edited by hand.
 */
import { getPublicKeyAsync } from '@noble/ed25519';
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEX_HEADER, packBuild, packIndex, packIndexText, packKeygen, packSign, packVerify } from '../../runtime/cli/pack.ts';
import { svc } from '../support/cli.ts';
import { connectionKinds } from '../../adapters/connections/kinds.ts';
import { readRegistry } from '../../adapters/integration-packs/registry-source.ts';
import { staticActionChecks } from '../../domain/integration-packs/pack-test.ts';
import { serviceVersion } from '../../runtime/version.ts';

const repoRoot = join(import.meta.dirname, '..', '..');
const shipped = join(repoRoot, 'packs');

/** A pack document without its integrity block, with an author's comment. */
const packSource = (name: string, version = '1.0.0', over = '') => `# ${name}: a test pack
format: integration-pack
format_version: 1
name: ${name}
version: ${version}
title: ${name} test pack
publisher: svc tests
connection_kinds: [http]
actions:
  - spec:
      name: custom.${name}.lookup
      title: Lookup
      transport: http
      inputs: [{ name: ip, type: string, required: true }]
      http:
        method: GET
        path: "/v1/ips/{{ inputs.ip }}"
      outputs: [{ name: score, path: $.score, type: integer }]
      effect_type: enrich
      risk: read
${over}`;

/** Runs `svc pack <argv...>` in-process and collects what it prints. */
const run = (argv: string[], env: NodeJS.ProcessEnv = {}) => svc(['pack', ...argv], env);

let dir: string;
/** A new empty folder for one test. */
const folder = (name: string) => {
  const path = join(dir, name);
  mkdirSync(path);
  return path;
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-pack-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('svc pack: a publisher round', () => {
  it('keygen, build, sign, index and verify; verify refuses a tampered copy', async () => {
    const work = folder('round');
    const keyFile = join(work, '..', 'round.key');

    const keygen = await run(['keygen', '--out', keyFile]);
    expect(keygen).toMatchObject({ code: 0, err: '' });
    const publicKey = keygen.out.trim();
    expect(Buffer.from(publicKey, 'base64')).toHaveLength(32);
    const seed = Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64');
    expect(seed).toHaveLength(32);
    expect(Buffer.from(await getPublicKeyAsync(seed)).toString('base64')).toBe(publicKey);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);

    writeFileSync(join(work, 'beta.yaml'), packSource('beta'));
    writeFileSync(join(work, 'alpha.yml'), packSource('alpha', '2.1.0'));
    const built = await run(['build', join(work, 'beta.yaml')]);
    expect(built.code).toBe(0);
    expect(built.out).toMatch(/^[0-9a-f]{64}\n$/);
    const betaText = readFileSync(join(work, 'beta.yaml'), 'utf8');
    expect(betaText.startsWith('# beta: a test pack\n')).toBe(true);
    expect(betaText.endsWith(`integrity:\n  algorithm: sha256\n  digest: ${built.out.trim()}\n`)).toBe(true);
    expect((await run(['build', join(work, 'alpha.yml')])).code).toBe(0);

    const signedBeta = await run(['sign', join(work, 'beta.yaml'), '--key', keyFile]);
    expect(signedBeta).toMatchObject({ code: 0, out: `wrote ${join(work, 'beta.yaml.sig')}\n` });
    await packSign(join(work, 'alpha.yml'), keyFile);

    expect(await run(['index', work])).toMatchObject({ code: 0, out: `wrote ${join(work, 'index.yaml')} (2 packs)\n` });
    const indexText = readFileSync(join(work, 'index.yaml'), 'utf8');
    expect(indexText.startsWith(INDEX_HEADER)).toBe(true);
    const index = parse(indexText);
    expect(index).toMatchObject({ format: 'pack-registry', version: 1 });
    expect(index.packs.map((p: { id: string; file: string }) => [p.id, p.file])).toEqual([
      ['alpha', 'alpha.yml'],
      ['beta', 'beta.yaml'],
    ]);
    expect(index.packs[1]).toEqual({
      id: 'beta',
      name: 'beta',
      version: '1.0.0',
      file: 'beta.yaml',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      signature: readFileSync(join(work, 'beta.yaml.sig'), 'utf8').trim(),
      title: 'beta test pack',
      description: '',
      publisher: 'svc tests',
    });

    const verified = await run(['verify', work, '--public-key', publicKey]);
    expect(verified).toEqual({
      code: 0,
      out:
        'alpha 2.1.0 signature_state=verified verified=true available=true refusal=none\n' +
        'beta 1.0.0 signature_state=verified verified=true available=true refusal=none\n',
      err: '',
    });
    expect((await run(['verify', work], { SVC_PACK_PUBLIC_KEY: publicKey })).code).toBe(0);
    expect((await run(['verify', work])).out).toContain('beta 1.0.0 signature_state=unverified verified=true available=true');

    // A tampered copy: one byte of the pack changed after signing and indexing.
    const tampered = folder('tampered');
    cpSync(work, tampered, { recursive: true });
    writeFileSync(join(tampered, 'beta.yaml'), betaText.replace('/v1/ips/', '/v2/ips/'));
    const refused = await run(['verify', tampered, '--public-key', publicKey]);
    expect(refused.code).toBe(1);
    expect(refused.out).toContain('beta 1.0.0 signature_state=invalid verified=false available=false refusal=pack_checksum_mismatch\n');
    expect(refused.out).toContain('alpha 2.1.0 signature_state=verified verified=true available=true refusal=none\n');
    expect(refused.err).toContain('svc pack: index.yaml cannot be regenerated');

    // Rebuilt and re-indexed without signing again: the old signature no longer verifies.
    await packBuild(join(tampered, 'beta.yaml'));
    await packIndex(tampered);
    const resigned = await packVerify(tampered, { publicKey, serviceVersion: '0.1.0' });
    expect(resigned).toMatchObject({ ok: false, stale: null });
    expect(resigned.packs.find((p) => p.id === 'beta')).toMatchObject({ signature_state: 'invalid', refusal: 'pack_signature_invalid' });
    expect((await packVerify(tampered, { publicKey: null, serviceVersion: '0.1.0' })).ok).toBe(true);
  });

  it('keygen never overwrites a key', async () => {
    const keyFile = join(dir, 'kept.key');
    await packKeygen(keyFile);
    const before = readFileSync(keyFile, 'utf8');
    expect(await run(['keygen', '--out', keyFile])).toEqual({ code: 1, out: '', err: `svc pack: ${keyFile} exists: keygen never overwrites a key\n` });
    expect(readFileSync(keyFile, 'utf8')).toBe(before);
  });
});

describe('svc pack build', () => {
  it('writes to --out and leaves the source as it was', async () => {
    const work = folder('build-out');
    const source = join(work, 'src.yaml');
    writeFileSync(source, packSource('gamma'));
    const { digest, out } = await packBuild(source, join(work, 'gamma.yaml'));
    expect(out).toBe(join(work, 'gamma.yaml'));
    expect(readFileSync(source, 'utf8')).toBe(packSource('gamma'));
    expect(readFileSync(out, 'utf8')).toBe(`${packSource('gamma')}integrity:\n  algorithm: sha256\n  digest: ${digest}\n`);
    expect((await packBuild(out)).digest).toBe(digest);
    expect(readFileSync(out, 'utf8')).toBe(`${packSource('gamma')}integrity:\n  algorithm: sha256\n  digest: ${digest}\n`);
  });

  it('prints each problem with its location, exits 1 and writes nothing', async () => {
    const work = folder('build-bad');
    const file = join(work, 'bad.yaml');
    const text = packSource('delta').replace('connection_kinds: [http]', 'connection_kinds: [ssh]').replace('title: delta test pack\n', '');
    writeFileSync(file, text);
    const result = await run(['build', file]);
    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(result.err).toContain(`svc pack: ${file} breaks the pack format\n  title: `);
    writeFileSync(file, text.replace('publisher:', 'title: Delta\npublisher:'));
    const rules = await run(['build', file]);
    expect(rules.err).toBe(`svc pack: ${file} breaks the pack rules\n  actions.0.spec.transport: transport http is not in connection_kinds\n`);
    expect(readFileSync(file, 'utf8')).toBe(text.replace('publisher:', 'title: Delta\npublisher:'));
  });

  it('refuses a flow-style document, integrity not last and a missing file, without a stack trace', async () => {
    const work = folder('build-refusals');
    writeFileSync(join(work, 'flow.yaml'), '{format: integration-pack, name: x}\n');
    expect((await run(['build', join(work, 'flow.yaml')])).err).toBe(`svc pack: ${join(work, 'flow.yaml')}: write the pack as a block-style YAML mapping\n`);
    writeFileSync(join(work, 'first.yaml'), `integrity: {algorithm: sha256, digest: ${'0'.repeat(64)}}\n${packSource('eps')}`);
    expect((await run(['build', join(work, 'first.yaml')])).err).toContain('the integrity block must be the last key');
    expect(await run(['build', join(work, 'absent.yaml')])).toEqual({
      code: 1,
      out: '',
      err: `svc pack: cannot read ${join(work, 'absent.yaml')}: no such file or folder\n`,
    });
  });
});

describe('svc pack sign', () => {
  it('refuses a key file that is not a base64 seed, and a pack that was not built', async () => {
    const work = folder('sign');
    writeFileSync(join(work, 'zeta.yaml'), packSource('zeta'));
    writeFileSync(join(work, 'bad.key'), 'not a key\n');
    const badKey = await run(['sign', join(work, 'zeta.yaml'), '--key', join(work, 'bad.key')]);
    expect(badKey).toMatchObject({ code: 1, err: expect.stringContaining('does not hold a base64 32-byte ed25519 seed') });
    await packKeygen(join(work, 'good.key'));
    const unbuilt = await run(['sign', join(work, 'zeta.yaml'), '--key', join(work, 'good.key')]);
    expect(unbuilt.err).toBe(`svc pack: ${join(work, 'zeta.yaml')} has no trailing integrity block: run svc pack build ${join(work, 'zeta.yaml')}\n`);
  });
});

describe('svc pack index', () => {
  it('is deterministic: the same folder gives the same bytes, wherever it is', async () => {
    const a = folder('det-a');
    for (const name of ['omega', 'eta', 'theta']) {
      writeFileSync(join(a, `${name}.yaml`), packSource(name));
      await packBuild(join(a, `${name}.yaml`));
    }
    await packIndex(a);
    const first = readFileSync(join(a, 'index.yaml'));
    await packIndex(a);
    expect(readFileSync(join(a, 'index.yaml'))).toEqual(first);
    const b = folder('det-b');
    cpSync(a, b, { recursive: true });
    rmSync(join(b, 'index.yaml'));
    await packIndex(b);
    expect(readFileSync(join(b, 'index.yaml'))).toEqual(first);
    expect(parse(first.toString()).packs.map((p: { id: string }) => p.id)).toEqual(['eta', 'omega', 'theta']);
  });

  it('refuses a pack whose integrity does not verify, and a name listed twice', async () => {
    const work = folder('index-bad');
    writeFileSync(join(work, 'iota.yaml'), packSource('iota'));
    await packBuild(join(work, 'iota.yaml'));
    const good = readFileSync(join(work, 'iota.yaml'), 'utf8');
    writeFileSync(join(work, 'iota.yaml'), good.replace('title: iota test pack', 'title: iota test pack, edited'));
    await expect(packIndexText(work)).rejects.toThrow("the integrity digest does not match the pack's data");
    writeFileSync(join(work, 'iota.yaml'), good);
    writeFileSync(join(work, 'iota-copy.yaml'), good);
    const twice = await run(['index', work]);
    expect(twice).toMatchObject({ code: 1, err: 'svc pack: pack iota is in both iota-copy.yaml and iota.yaml\n' });
    rmSync(join(work, 'iota-copy.yaml'));
    writeFileSync(join(work, 'iota.yaml.sig'), 'bm90IGEgc2lnbmF0dXJl\n');
    expect((await run(['index', work])).err).toContain('iota.yaml.sig is not a base64 ed25519 signature');
  });
});

describe('svc pack verify', () => {
  it('reports a stale or missing index and exits 1', async () => {
    const work = folder('stale');
    writeFileSync(join(work, 'kappa.yaml'), packSource('kappa'));
    await packBuild(join(work, 'kappa.yaml'));
    expect(await packVerify(work, { publicKey: null, serviceVersion: '0.1.0' })).toEqual({
      packs: [],
      stale: `${join(work, 'index.yaml')} is missing: run svc pack index ${work}`,
      ok: false,
    });
    await packIndex(work);
    expect((await packVerify(work, { publicKey: null, serviceVersion: '0.1.0' })).ok).toBe(true);
    const index = readFileSync(join(work, 'index.yaml'), 'utf8');
    writeFileSync(join(work, 'index.yaml'), index.replace(INDEX_HEADER, ''));
    const stale = await run(['verify', work]);
    expect(stale.code).toBe(1);
    expect(stale.out).toContain('kappa 1.0.0 signature_state=unverified verified=true available=true refusal=none');
    expect(stale.err).toBe(`svc pack: index.yaml is not what svc pack index writes now: run svc pack index ${work}\n`);
  });

  it('refuses a malformed key and an index that is not pack-registry version 1', async () => {
    const work = folder('bad-index');
    expect(await run(['verify', work, '--public-key', 'AAAA'])).toMatchObject({ code: 1, err: 'svc pack: an ed25519 public key is 32 bytes, this one is 3\n' });
    writeFileSync(join(work, 'index.yaml'), 'format: pack-registry\nversion: 2\npacks: []\n');
    expect(await run(['verify', work])).toMatchObject({
      code: 1,
      err: expect.stringMatching(/^svc pack: index.yaml is not a pack-registry version 1 index\n {2}version: /),
    });
  });
});

describe('svc pack usage', () => {
  it.each([
    [[]],
    [['bogus']],
    [['constructor']],
    [['build']],
    [['build', 'a.yaml', 'b.yaml']],
    [['sign', 'a.yaml']],
    [['keygen']],
    [['index', 'packs', '--out', 'x']],
    [['verify', 'packs', '--unknown']],
  ])('%j is bad usage: exit 2, the problem and where help is', async (argv) => {
    const result = await run(argv);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/^svc: .+\nrun 'svc pack( [a-z]+)? --help' for usage\n$/);
  });
});

describe('the shipped packs/ folder', () => {
  it('verifies: every pack available on this service, checksum-verified without a key', async () => {
    const report = await packVerify(shipped, { publicKey: null, serviceVersion: serviceVersion() });
    expect(report.packs.map((p) => p.id)).toContain('ip_reputation');
    for (const p of report.packs) expect(p).toMatchObject({ signature_state: 'unverified', verified: true, available: true, refusal: null });
    expect(report.ok).toBe(true);
  });

  it('proves every shipped action with its fixtures: each compiles, and its fixtures and templates pass', async () => {
    const items = await readRegistry(shipped, { publicKey: null, serviceVersion: serviceVersion(), connectionKinds });
    for (const { verdict } of items) {
      const pack = verdict.pack;
      if (pack === null) throw new Error(`${verdict.refusal?.code}`);
      pack.actions.forEach((action, index) => {
        const rows = staticActionChecks(pack, index).rows;
        expect(action.fixtures.length, action.spec.name).toBeGreaterThan(0);
        for (const row of rows) expect(row, `${row.action} ${row.check}`).toMatchObject({ status: 'pass' });
      });
    }
  });

  it('has packs/index.yaml exactly as svc pack index writes it now', async () => {
    expect(readFileSync(join(shipped, 'index.yaml'), 'utf8')).toBe(await packIndexText(shipped));
  });

  it('`svc pack verify packs` passes through the svc entry point', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(repoRoot, 'bin', 'svc.js'), 'pack', 'verify', 'packs'], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH },
    });
    expect(stdout).toContain('ip_reputation 1.0.0 signature_state=unverified verified=true available=true refusal=none\n');
  });
});
