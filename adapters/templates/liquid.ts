/**
 * The runbook template engine on LiquidJS (docs/architecture.md "Templates"; SPEC.md "Runbook",
 * template context). Its parse, render and memory limits are set (liquidjs defaults
 * them to unlimited), unknown filters are errors, undefined variables render empty,
 * and the file-reading tags (include, render, layout) do not exist.
 */
import { Context, Liquid, Output, Tokenizer, TypeGuards, Value, toPromise, toValue } from 'liquidjs';
import type { Template, Token } from 'liquidjs';
import { someString } from '../../domain/shared/json-text.ts';

/** Renders runbook values and `when` conditions against a context of plain data. */
export type TemplateEngine = {
  renderValue: (value: unknown, context: Record<string, unknown>) => Promise<unknown>;
  evaluateCondition: (expr: string, context: Record<string, unknown>) => Promise<boolean>;
  checkTemplate: (text: string) => string | null;
  checkCondition: (expr: string) => string | null;
  mayRead: (value: unknown, root: string) => boolean;
};

/** A template or condition that does not parse, fails to render, or hits a limit. */
export class TemplateError extends Error {
  override readonly name = 'TemplateError';
}

const DEFAULT_LIMITS = { parseLimit: 100_000, renderLimit: 1_000, memoryLimit: 10_000_000 };
/** Tags whose argument is one expression, checked as strictly as `{{ }}` outputs. */
const EXPRESSION_TAGS = new Set(['if', 'elsif', 'unless']);

/**
 * Builds an engine. `limits`: parseLimit in characters per template, renderLimit in
 * milliseconds per render, memoryLimit in liquidjs allocation units per render; the
 * defaults are 1e5, 1000 and 1e7.
 *
 * - `renderValue` walks lists and plain objects deep. A string that is exactly one
 *   `{{ expr }}` (whitespace around allowed) yields the expression's native value
 *   (a list stays a list; undefined becomes null); any other string renders to a
 *   string; other values pass through. Throws TemplateError.
 * - `evaluateCondition` takes a bare expression (`case.tags contains "x"`) or one
 *   wrapped in `{{ }}` and resolves to a real boolean; any other result, a malformed
 *   expression or a render failure throws TemplateError naming the expression.
 * - `checkTemplate` / `checkCondition` only parse, returning the error message or null.
 * - `mayRead(value, root)`: whether rendering the strings in `value` (deep) or evaluating
 *   them as conditions could read the context variable `root`; false only when none
 *   names it and none looks a variable up by a computed name (`[k]`), so a caller may
 *   leave out a costly variable its templates cannot reach.
 *
 * @example
 *   const engine = createTemplateEngine();
 *   await engine.renderValue({ ips: '{{ trigger.ips }}' }, { trigger: { ips: ['1.2.3.4'] } }); // { ips: ['1.2.3.4'] }
 */
export function createTemplateEngine(limits: { parseLimit?: number; renderLimit?: number; memoryLimit?: number } = {}): TemplateEngine {
  const liquid = new Liquid({
    parseLimit: limits.parseLimit ?? DEFAULT_LIMITS.parseLimit,
    renderLimit: limits.renderLimit ?? DEFAULT_LIMITS.renderLimit,
    memoryLimit: limits.memoryLimit ?? DEFAULT_LIMITS.memoryLimit,
    strictFilters: true,
    strictVariables: false,
    ownPropertyOnly: true,
  });
  // Runbook templates have no partials; without these tags no template can read a file.
  for (const tag of ['include', 'render', 'layout']) delete liquid.tags[tag];

  /** liquidjs accepts `a ==` or `a b` and evaluates them to false, so the shape is checked here. */
  const parseExpression = (expr: string): Value => {
    if (expr.length > liquid.options.parseLimit) throw new Error('parse length limit exceeded');
    const tokenizer = new Tokenizer(expr, liquid.options.operators);
    const token = tokenizer.readFilteredValue();
    tokenizer.skipBlank();
    if (!tokenizer.end()) throw new Error(`unexpected "${tokenizer.remaining()}" in expression`);
    const problem = postfixProblem(token.initial.postfix);
    if (problem !== null) throw new Error(problem);
    return new Value(token, liquid);
  };

  const compile = (text: string): Template[] => {
    const templates = liquid.parse(text);
    let commentDepth = 0;
    for (const token of new Tokenizer(text, liquid.options.operators).readTopLevelTokens(liquid.options)) {
      // TagToken is structurally an OutputToken too, so tags are told apart first.
      if (TypeGuards.isTagToken(token)) {
        if (token.name === 'comment') commentDepth += 1;
        else if (token.name === 'endcomment') commentDepth -= 1;
        else if (commentDepth === 0 && EXPRESSION_TAGS.has(token.name)) parseExpression(token.args);
      } else if (commentDepth === 0 && TypeGuards.isOutputToken(token)) {
        parseExpression(token.content);
      }
    }
    return templates;
  };

  const conditionValue = (expr: string): Value => {
    const trimmed = expr.trim();
    if (!trimmed.startsWith('{{')) return parseExpression(trimmed);
    const output = soleOutput(compile(trimmed));
    if (output === null) throw new Error('a condition is one expression, optionally wrapped in {{ }}');
    return output.value;
  };

  const evaluate = async (value: Value, context: Record<string, unknown>): Promise<unknown> => {
    const result = toValue(await toPromise(value.value(new Context(context, liquid.options, {}, { liquid }))));
    return result === undefined ? null : result;
  };

  const renderString = async (text: string, context: Record<string, unknown>): Promise<unknown> => {
    const templates = attempt(`template "${clip(text)}"`, () => compile(text));
    const output = soleOutput(templates);
    try {
      return output === null ? await liquid.render(templates, context) : await evaluate(output.value, context);
    } catch (error) {
      throw new TemplateError(`template "${clip(text)}" failed to render: ${messageOf(error)}`, { cause: error });
    }
  };

  const renderValue = async (value: unknown, context: Record<string, unknown>): Promise<unknown> => {
    if (typeof value === 'string') return renderString(value, context);
    if (Array.isArray(value)) {
      const items: unknown[] = [];
      for (const item of value) items.push(await renderValue(item, context));
      return items;
    }
    if (!isPlainObject(value)) return value;
    const entries: [string, unknown][] = [];
    for (const [key, item] of Object.entries(value)) entries.push([key, await renderValue(item, context)]);
    // fromEntries defines own properties, so a `__proto__` key stays data.
    return Object.fromEntries(entries);
  };

  const evaluateCondition = async (expr: string, context: Record<string, unknown>): Promise<boolean> => {
    const value = attempt(`condition "${clip(expr)}"`, () => conditionValue(expr));
    let result: unknown;
    try {
      result = await evaluate(value, context);
    } catch (error) {
      throw new TemplateError(`condition "${clip(expr)}" failed to evaluate: ${messageOf(error)}`, { cause: error });
    }
    if (typeof result === 'boolean') return result;
    throw new TemplateError(`condition "${clip(expr)}" must evaluate to true or false, not ${describe(result)}`);
  };

  return {
    renderValue,
    evaluateCondition,
    checkTemplate: (text) => problemOf(() => compile(text)),
    checkCondition: (expr) => problemOf(() => conditionValue(expr)),
    mayRead,
  };
}

/** A `[` that opens a lookup by computed name at the root (`{{ [k] }}`), not an index into a value (`x[0]`, `y["a"][1]`). */
const COMPUTED_ROOT = /(^|[^\w\].)'"])\[/;

const mayRead = (value: unknown, root: string): boolean => someString(value, (text) => text.includes(root) || COMPUTED_ROOT.test(text));

/** Stack depth of the postfix form: every operator needs its operands, and one value must remain. */
function postfixProblem(postfix: readonly Token[]): string | null {
  let depth = 0;
  for (const token of postfix) {
    if (!TypeGuards.isOperatorToken(token)) {
      depth += 1;
      continue;
    }
    const arity = token.operator === 'not' ? 1 : 2;
    if (depth < arity) return `operator "${token.operator}" is missing an operand`;
    depth -= arity - 1;
  }
  return depth === 1 ? null : 'values must be joined by an operator';
}

/** The one output of a template that is exactly `{{ expr }}` with only whitespace around, else null. */
function soleOutput(templates: readonly Template[]): Output | null {
  const [first, ...more] = templates.filter((t): t is Output => t instanceof Output);
  const blankAround = templates.every((t) => t instanceof Output || (TypeGuards.isHTMLToken(t.token) && t.token.getContent().trim() === ''));
  return first !== undefined && more.length === 0 && blankAround ? first : null;
}

function attempt<T>(subject: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new TemplateError(`${subject} is invalid: ${messageOf(error)}`, { cause: error });
  }
}

function problemOf(parse: () => unknown): string | null {
  try {
    parse();
    return null;
  } catch (error) {
    return messageOf(error);
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}
