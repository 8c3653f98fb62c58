/**
 * The `svc` command line (runtime/cli/commands.ts; docs/operations.md "The svc command"),
 * in-process: help on every command, the version, usage errors with exit status 2, and the
 * completion script. Issue 48.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { serviceVersion } from '../../runtime/version.ts';
import { svc } from '../support/cli.ts';
import { repoRoot } from '../support/fixtures.ts';

const commands = [
  ['serve'],
  ['migrate'],
  ['audit'],
  ['audit', 'verify'],
  ['openapi'],
  ['runbook-schema'],
  ['dev'],
  ['dev', 'token'],
  ['dev', 'gateway'],
  ['dev', 'receiver'],
  ['dev', 'edge-waf'],
  ['pack'],
  ['pack', 'keygen'],
  ['pack', 'build'],
  ['pack', 'sign'],
  ['pack', 'index'],
  ['pack', 'verify'],
  ['completion'],
];

describe('svc help', () => {
  it('--help and -h print the commands on stdout and exit 0', async () => {
    for (const flag of ['--help', '-h']) {
      const result = await svc([flag]);
      expect(result).toMatchObject({ code: 0, err: '' });
      for (const name of ['serve', 'migrate', 'audit', 'openapi', 'runbook-schema', 'dev', 'pack', 'completion']) expect(result.out).toContain(`svc ${name}`);
      expect(result.out).toMatch(/Exit status: 0 done, 1 failed or refused, 2 bad usage/);
    }
  });

  it.each(commands)('svc %s --help prints its usage and runs nothing', async (...words) => {
    for (const flag of ['--help', '-h']) {
      const result = await svc([...words, flag], { SVC_DATA_DIR: '/nonexistent/never-opened' });
      expect(result).toMatchObject({ code: 0, err: '' });
      expect(result.out).toContain(`svc ${words.join(' ')}`);
    }
  });

  it('--version prints the version of package.json', async () => {
    expect(await svc(['--version'])).toEqual({ code: 0, out: `${serviceVersion()}\n`, err: '' });
  });
});

describe('svc usage errors', () => {
  it.each([
    [[], 'svc', /a command is required/],
    [['bogus'], 'svc', /Unknown argument: bogus/],
    [['serve', '--bogus'], 'svc serve', /Unknown argument: bogus/],
    [['audit'], 'svc audit', /audit needs a subcommand: verify/],
    [['audit', 'check'], 'svc audit', /Unknown argument: check/],
    [['dev'], 'svc dev', /dev needs a subcommand/],
    [['dev', 'token', '--email'], 'svc dev token', /Not enough arguments following: email/],
    [['dev', 'receiver', '--port', '9000', 'extra'], 'svc dev receiver', /Unknown argument: extra/],
    [['pack', 'keygen'], 'svc pack keygen', /Missing required argument: out/],
  ])('%j: exit 2, the problem and where help is, on stderr', async (args, hint, problem) => {
    const result = await svc(args);
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err).toMatch(problem);
    expect(result.err.endsWith(`\nrun '${hint} --help' for usage\n`)).toBe(true);
  });

  it('a failing command exits 1 with its message, not a usage hint', async () => {
    const result = await svc(['dev', 'edge-waf', '--port', '0']);
    expect(result).toEqual({ code: 1, out: '', err: 'svc: a token is required (--token, or SVC_DEV_EDGE_WAF_TOKEN), the bearer token the stand-in accepts\n' });
    expect(await svc(['dev', 'receiver', '--port', 'x', '--secret', 's'])).toMatchObject({ code: 1 });
  });
});

describe('svc completion', () => {
  it('prints a bash/zsh completion script for svc', async () => {
    const result = await svc(['completion']);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/###-begin-svc-completions-###/);
    expect(result.out).toMatch(/--get-yargs-completions/);
  });

  it('completes commands and subcommands', async () => {
    const top = await svc(['--get-yargs-completions', 'svc', '']);
    expect(top.out.split('\n')).toEqual(expect.arrayContaining(['serve', 'migrate', 'audit', 'openapi', 'runbook-schema', 'dev', 'pack', 'completion']));
    const pack = await svc(['--get-yargs-completions', 'svc', 'pack', '']);
    expect(pack.out.split('\n')).toEqual(expect.arrayContaining(['keygen', 'build', 'sign', 'index', 'verify']));
  });
});

describe('the compiled build', () => {
  type Output = { entryPoint?: string; inputs: Record<string, unknown>; imports: { path: string; kind: string; external?: boolean }[] };
  /** esbuild's metafile of the build vitest's global setup made (tools/build.mjs). */
  const meta = JSON.parse(readFileSync(join(repoRoot, 'dist/meta.json'), 'utf8')) as { outputs: Record<string, Output> };

  /** Every module and external package `svc serve` loads before it answers: svc.js, then the serve chunk, through static imports only. */
  function loadedAtStart(): string[] {
    const outputs = new Map(Object.entries(meta.outputs).map(([path, output]) => [path.replace(/^.*dist\//, ''), output]));
    const serve = [...outputs].find(([, output]) => output.entryPoint === 'runtime/cli/serve.ts')?.[0];
    const pending = ['svc.js', serve ?? 'missing serve chunk'];
    const seen = new Set<string>();
    const loaded: string[] = [];
    for (let chunk = pending.pop(); chunk !== undefined; chunk = pending.pop()) {
      if (seen.has(chunk)) continue;
      seen.add(chunk);
      const output = outputs.get(chunk);
      if (!output) throw new Error(`no chunk ${chunk} in dist/meta.json`);
      loaded.push(...Object.keys(output.inputs));
      for (const imported of output.imports) {
        if (imported.kind !== 'import-statement') continue;
        if (imported.external) loaded.push(imported.path);
        else pending.push(imported.path.replace(/^.*dist\//, ''));
      }
    }
    return loaded;
  }

  it('svc serve loads at start none of the code only some installs or calls use (docs/operations.md "The compiled build")', () => {
    const loaded = loadedAtStart();
    expect(loaded).toContain('runtime/boot.ts');
    const lazy =
      /(^|node_modules\/)(@kurrent\/|ssh2|ai\/|@ai-sdk\/|ollama-ai-provider-v2|@modelcontextprotocol\/sdk|nodemailer|imapflow|@readme\/openapi-parser|undici\/|ws\/|busboy\/|@electric-sql\/pglite|kysely-pglite-dialect)/;
    expect(loaded.filter((path) => lazy.test(path))).toEqual([]);
  });
});
