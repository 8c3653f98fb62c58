/**
 * The template and naming rules of a custom action's spec that its schema (spec.ts)
 * cannot say field by field. `specProblems(spec)` lists every problem as a
 * validation issue `{loc, msg, type}` with `loc` relative to the spec; the API answers
 * them as 422 ValidationFailed under `['body', 'spec', ...]`, and the decider refuses a
 * spec that has any (`custom_action_spec_invalid`), whoever sends it.
 *
 * Templates. Every `{{ ... }}` placeholder is exactly `{{ inputs.<declared input> }}`
 * (whitespace inside the braces allowed): no filters, no other variables, no Liquid
 * tags. So a custom action can never read a secret, a connection or the environment:
 * rendering is substitution of the step's declared input values, nothing else.
 * Types: `template_reads_secret` (a placeholder names `secret`, `secrets`,
 * `connection` or `env`), `template_filter` (a `|` filter), `template_tag` (`{%`),
 * `template_unknown_input` (an input the spec does not declare), `template_invalid`
 * (anything else, an unclosed `{{` included).
 *
 * Path. In `http.path` a placeholder fills a whole segment (`/hosts/{{ inputs.ip }}`,
 * not `/hosts/ip-{{ inputs.ip }}`), and the literal segments hold no `.` or `..` (also
 * percent-encoded), no `?`, `#` or `\`, and no empty segment but a trailing slash: each
 * rendered value is URL-encoded as one segment, so it can never leave the declared path
 * or add a query (type `path_escapes`). Other characters outside RFC 3986 `pchar`, or a
 * `%` not followed by two hex digits, are `path_invalid`.
 *
 * Names. Input names and output names are unique (`duplicate_name`); `target.input` and
 * each `$.input.<name>` redaction name a declared input (`unknown_input`; inputs are
 * scalars, so a redaction goes no deeper: `redact_invalid`). Headers the transport sets
 * itself (`Host`, `Content-Length`, `Transfer-Encoding`, `Connection`, `Idempotency-Key`)
 * may not be declared (`header_reserved`).
 *
 * Effect (spec.ts `customEffectSchema`). Each output `effect` names is a declared one
 * (`exit_code` too for ssh; `unknown_output`). `enforced_output` and a non-empty
 * `enforced_values` come together, and `outcome.success` is not empty
 * (`effect_incomplete`). `enforced_*` are on a read (risk `read`), `outcome` on an http
 * action, and `ownership.read` names another action (`effect_not_applicable`). No
 * message fragment means both already present and already absent (`effect_ambiguous`).
 */
import { bodyFieldConflict, bodyFieldPath, MAX_BODY_INDEX } from './body-path.ts';
import { pathFilterTemplates } from './output-path.ts';
import type { CustomActionSpec, CustomEffect } from './spec.ts';

export type SpecProblem = { loc: (string | number)[]; msg: string; type: string };

/** One placeholder: `{{`, anything up to the first `}}`. */
const PLACEHOLDER = /\{\{([\s\S]*?)\}\}/g;
/** The one placeholder body allowed. */
const INPUT_REFERENCE = /^\s*inputs\.([a-z][a-z0-9_]*)\s*$/;
const INPUT_PATH = /inputs\.[A-Za-z0-9_]+/g;
/** Names that would reach outside the declared inputs, as whole identifiers. */
const SECRET_NAMES = /(^|[^A-Za-z0-9_])(secrets?|connection|env)(?![A-Za-z0-9_])/i;
/** RFC 3986 `pchar`: what a literal path segment may hold as it is (shared with the OpenAPI import). */
export const PCHAR = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})*$/;
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;
export const reservedHeaders: readonly string[] = ['host', 'content-length', 'transfer-encoding', 'connection', 'idempotency-key'];

/** The input names `{{ ... }}` placeholders of a valid template read, in order. */
export function placeholderInputs(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].flatMap((m) => {
    const name = INPUT_REFERENCE.exec(m[1] ?? '')?.[1];
    return name === undefined ? [] : [name];
  });
}

/** The problems of one template field at `loc`, given the declared input names. */
export function templateProblems(template: string, inputs: ReadonlySet<string>, loc: (string | number)[]): SpecProblem[] {
  const problems: SpecProblem[] = [];
  if (template.includes('{%')) problems.push({ loc, msg: 'templates take no {% %} tags, only {{ inputs.<name> }} placeholders', type: 'template_tag' });
  for (const match of template.matchAll(PLACEHOLDER)) {
    const body = match[1] ?? '';
    const reference = INPUT_REFERENCE.exec(body);
    if (reference) {
      const name = reference[1] ?? '';
      if (!inputs.has(name)) problems.push({ loc, msg: `{{ inputs.${name} }} names no declared input`, type: 'template_unknown_input' });
      continue;
    }
    const outsideInputs = body.replace(INPUT_PATH, '');
    if (SECRET_NAMES.test(outsideInputs)) {
      problems.push({ loc, msg: 'a template reads declared inputs only, never a secret, connection or the environment', type: 'template_reads_secret' });
    } else if (body.includes('|')) {
      problems.push({ loc, msg: 'templates take no filters: write {{ inputs.<name> }}', type: 'template_filter' });
    } else {
      problems.push({ loc, msg: `{{${body}}} is not {{ inputs.<name> }}`, type: 'template_invalid' });
    }
  }
  // An opener left after every closed placeholder is taken out was never closed.
  if (template.replace(PLACEHOLDER, '').includes('{{')) problems.push({ loc, msg: 'a {{ placeholder is not closed with }}', type: 'template_invalid' });
  return problems;
}

/** The problems of `http.path` beyond its templates: where a rendered value could go. */
export function pathProblems(path: string, loc: (string | number)[]): SpecProblem[] {
  const problems: SpecProblem[] = [];
  /** Each reason once, however many segments have it. */
  const escapes = (msg: string) => {
    if (!problems.some((p) => p.msg === msg)) problems.push({ loc, msg, type: 'path_escapes' });
  };
  if (/[?#\\]/.test(path.replace(PLACEHOLDER, ''))) escapes('the path holds no ?, # or \\: query fields go in `query`');
  const segments = path.split('/').slice(1);
  segments.forEach((segment, i) => {
    if (segment.includes('{{')) {
      if (!/^\{\{[^{}]*\}\}$/.test(segment)) escapes('a placeholder fills a whole path segment, e.g. /hosts/{{ inputs.ip }}');
      return;
    }
    if (segment === '' && i < segments.length - 1) escapes('the path has no empty segment (//)');
    else if (DOT_SEGMENT.test(segment)) escapes('the path has no . or .. segment');
    else if (!/[?#\\]/.test(segment) && !PCHAR.test(segment))
      problems.push({ loc, msg: `path segment ${JSON.stringify(segment)} has characters a URL path does not take as they are`, type: 'path_invalid' });
  });
  return problems;
}

/** Every problem of `spec` beyond its schema, in field order; none when it may be saved. */
export function specProblems(spec: CustomActionSpec): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const inputs = new Set(spec.inputs.map((i) => i.name));
  const fields = (record: Record<string, string>, loc: (string | number)[]) => {
    for (const [key, text] of Object.entries(record)) problems.push(...templateProblems(text, inputs, [...loc, key]));
  };

  problems.push(...duplicates(spec.inputs, 'inputs'), ...duplicates(spec.outputs, 'outputs'));
  if (spec.http) {
    problems.push(...templateProblems(spec.http.path, inputs, ['http', 'path']), ...pathProblems(spec.http.path, ['http', 'path']));
    for (const name of Object.keys(spec.http.headers)) {
      if (reservedHeaders.includes(name.toLowerCase()))
        problems.push({ loc: ['http', 'headers', name], msg: `${name} is set by the transport, not by the action`, type: 'header_reserved' });
    }
    fields(spec.http.headers, ['http', 'headers']);
    fields(spec.http.query, ['http', 'query']);
    if (spec.http.body) {
      fields(spec.http.body, ['http', 'body']);
      problems.push(...bodyPathProblems(Object.keys(spec.http.body)));
    }
  }
  if (spec.ssh) {
    for (const [i, arg] of spec.ssh.args.entries()) problems.push(...templateProblems(arg, inputs, ['ssh', 'args', i]));
  }
  if (spec.idempotency_key !== null) problems.push(...templateProblems(spec.idempotency_key, inputs, ['idempotency_key']));
  if (spec.compensation) fields(spec.compensation.with, ['compensation', 'with']);
  if (spec.target && !inputs.has(spec.target.input)) {
    problems.push({ loc: ['target', 'input'], msg: `target input ${spec.target.input} is not a declared input`, type: 'unknown_input' });
  }
  spec.outputs.forEach((output, i) => {
    for (const filter of pathFilterTemplates(output.path)) problems.push(...templateProblems(filter, inputs, ['outputs', i, 'path']));
  });
  if (spec.effect) problems.push(...effectProblems(spec, spec.effect));
  for (const [i, value] of (spec.effect?.enforced_values ?? []).entries()) problems.push(...templateProblems(value, inputs, ['effect', 'enforced_values', i]));
  for (const [i, value] of (spec.effect?.outcome?.success ?? []).entries())
    problems.push(...templateProblems(value, inputs, ['effect', 'outcome', 'success', i]));
  spec.redact.forEach((path, i) => {
    const [, root, name, ...deeper] = path.split('.');
    if (root !== 'input' || name === undefined) return;
    if (!inputs.has(name)) problems.push({ loc: ['redact', i], msg: `${path} names no declared input`, type: 'unknown_input' });
    else if (deeper.length > 0) problems.push({ loc: ['redact', i], msg: `inputs are scalars: redact $.input.${name} itself`, type: 'redact_invalid' });
  });
  return problems;
}

/** The problems of `effect`: named outputs declared, lists that decide not empty, each part on an action it fits. */
function effectProblems(spec: CustomActionSpec, effect: CustomEffect): SpecProblem[] {
  const problems: SpecProblem[] = [];
  const outputs = new Set([...spec.outputs.map((o) => o.name), ...(spec.transport === 'ssh' ? ['exit_code'] : [])]);
  const problem = (loc: (string | number)[], msg: string, type: string) => problems.push({ loc: ['effect', ...loc], msg, type });
  const declared = (name: string | undefined, loc: (string | number)[]) => {
    if (name !== undefined && !outputs.has(name)) problem(loc, `${name} is not a declared output`, 'unknown_output');
  };

  if (effect.enforced_output !== undefined || effect.enforced_values !== undefined) {
    if (spec.risk !== 'read') problem(['enforced_output'], 'only a read action (risk read) declares what enforced reads as', 'effect_not_applicable');
    if (effect.enforced_output === undefined) problem(['enforced_output'], 'enforced_values need the enforced_output they are read from', 'effect_incomplete');
    if (!effect.enforced_values?.length) problem(['enforced_values'], 'enforced_output needs at least one enforced value', 'effect_incomplete');
    declared(effect.enforced_output, ['enforced_output']);
  }
  const outcome = effect.outcome;
  if (outcome) {
    if (spec.transport !== 'http') problem(['outcome'], 'an outcome reads an http answer: an ssh action has its exit code', 'effect_not_applicable');
    declared(outcome.output, ['outcome', 'output']);
    declared(outcome.message, ['outcome', 'message']);
    if (outcome.success.length === 0) problem(['outcome', 'success'], 'an outcome needs at least one success value', 'effect_incomplete');
    const present = new Set(outcome.already_present.map((m) => m.toLowerCase()));
    outcome.already_absent.forEach((m, i) => {
      if (present.has(m.toLowerCase()))
        problem(['outcome', 'already_absent', i], `${JSON.stringify(m)} cannot mean both already present and already absent`, 'effect_ambiguous');
    });
  }
  const exit = effect.exit;
  if (exit) {
    if (spec.transport !== 'ssh') problem(['exit'], 'exit wording reads an ssh command: an http action declares an outcome', 'effect_not_applicable');
    for (const present of exit.already_present) {
      exit.already_absent.forEach((absent, i) => {
        const both = absent.wording.find((w) => absent.exit_code === present.exit_code && present.wording.some((p) => p.toLowerCase() === w.toLowerCase()));
        if (both !== undefined)
          problem(
            ['exit', 'already_absent', i],
            `exit ${absent.exit_code} with ${JSON.stringify(both)} cannot mean both already present and already absent`,
            'effect_ambiguous',
          );
      });
    }
  }
  if (effect.ownership?.read === spec.name)
    problem(['ownership', 'read'], 'the ownership read is another action, a read of the vendor object', 'effect_not_applicable');
  return problems;
}

function duplicates(items: readonly { name: string }[], field: string): SpecProblem[] {
  const seen = new Set<string>();
  return items.flatMap((item, i) => {
    if (!seen.has(item.name)) {
      seen.add(item.name);
      return [];
    }
    return [{ loc: [field, i, 'name'], msg: `${item.name} is declared twice`, type: 'duplicate_name' }];
  });
}

/**
 * A body field name is a path (body-path.ts): dots into nested objects, `[n]` into arrays;
 * every key non-empty and not `__proto__` (which would reach the object's prototype), every
 * index under 100, and no place given two shapes (`a` and `a.b` both want `a`; so do
 * `a[0]` and `a.b`).
 */
function bodyPathProblems(names: readonly string[]): SpecProblem[] {
  const problems: SpecProblem[] = names
    .filter((name) => bodyFieldPath(name) === null)
    .map((name) => ({
      loc: ['http', 'body', name],
      msg: `a body field path is keys joined by dots, each optionally indexed [0] to [${MAX_BODY_INDEX - 1}], none empty or __proto__`,
      type: 'body_field_invalid',
    }));
  const clash = bodyFieldConflict(names);
  if (clash !== null) {
    problems.push({ loc: ['http', 'body', clash.name], msg: `${clash.with} already gives this place another shape`, type: 'body_field_conflict' });
  }
  return problems;
}
