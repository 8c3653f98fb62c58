import { describe, expect, it } from 'vitest';
import { TemplateError, createTemplateEngine } from '../../../adapters/templates/liquid.ts';

const engine = createTemplateEngine();
const context = {
  trigger: { severity: 'high', ips: ['10.0.0.1', '10.0.0.2'], count: 3, flagged: true, rule: { id: 'R-1' } },
  case: { key: 'CASE-7', tags: ['phishing', 'mail'] },
  steps: { lookup: { output: { hits: [{ host: 'a' }, { host: 'b' }] } } },
  inputs: { mailbox: 'alice@example.com' },
};

describe('renderValue: native values', () => {
  it('keeps the native value of a string that is exactly one {{ expr }}', async () => {
    expect(await engine.renderValue('{{ trigger.ips }}', context)).toEqual(['10.0.0.1', '10.0.0.2']);
    expect(await engine.renderValue('{{ trigger.count }}', context)).toBe(3);
    expect(await engine.renderValue('{{ trigger.flagged }}', context)).toBe(true);
    expect(await engine.renderValue('{{ steps.lookup.output.hits | first }}', context)).toEqual({ host: 'a' });
    expect(await engine.renderValue('  {{- trigger.count -}}\n', context)).toBe(3);
  });

  it('turns an undefined sole expression into null', async () => {
    expect(await engine.renderValue('{{ trigger.nothing.here }}', context)).toBeNull();
    expect(await engine.renderValue('{{ nil }}', context)).toBeNull();
  });

  it('renders any other string to a string, undefined variables as empty', async () => {
    expect(await engine.renderValue('count={{ trigger.count }}', context)).toBe('count=3');
    expect(await engine.renderValue('{{ trigger.count }}{{ trigger.count }}', context)).toBe('33');
    expect(await engine.renderValue('[{{ trigger.nothing }}]', context)).toBe('[]');
    expect(await engine.renderValue('{% for ip in trigger.ips %}{{ ip }};{% endfor %}', context)).toBe('10.0.0.1;10.0.0.2;');
    expect(await engine.renderValue('plain text', context)).toBe('plain text');
  });

  it('walks objects and lists deep and passes non-strings through', async () => {
    const value = {
      to: '{{ inputs.mailbox }}',
      targets: ['{{ trigger.ips }}', 'case {{ case.key }}', 7, null, false],
      nested: { deeper: { count: '{{ trigger.count }}' } },
    };
    expect(await engine.renderValue(value, context)).toEqual({
      to: 'alice@example.com',
      targets: [['10.0.0.1', '10.0.0.2'], 'case CASE-7', 7, null, false],
      nested: { deeper: { count: 3 } },
    });
    expect(await engine.renderValue(42, context)).toBe(42);
    expect(value.to).toBe('{{ inputs.mailbox }}');
  });

  it('keeps a __proto__ key as plain data', async () => {
    const rendered = (await engine.renderValue(JSON.parse('{"__proto__": {"polluted": "{{ case.key }}"}}'), context)) as object;
    expect(Object.getPrototypeOf(rendered)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(rendered, '__proto__')?.value).toEqual({ polluted: 'CASE-7' });
  });
});

describe('renderValue: errors and limits', () => {
  it('refuses unknown filters', async () => {
    await expect(engine.renderValue('{{ case.key | shout }}', context)).rejects.toThrow(TemplateError);
    await expect(engine.renderValue('x {{ case.key | shout }}', context)).rejects.toThrow(/undefined filter: shout/);
  });

  it('refuses malformed templates with a message naming the template', async () => {
    await expect(engine.renderValue('{{ case.key', context)).rejects.toThrow(/template "\{\{ case.key" is invalid: .*not closed/);
    await expect(engine.renderValue('{% if case.key %}open', context)).rejects.toThrow(TemplateError);
  });

  it('has no tags that read files', async () => {
    await expect(engine.renderValue('{% include "/etc/passwd" %}', context)).rejects.toThrow(/tag "include" not found/);
    await expect(engine.renderValue('{% render "package.json" %}', context)).rejects.toThrow(TemplateError);
  });

  it('stops a huge loop at the memory limit instead of hanging', async () => {
    const started = performance.now();
    await expect(engine.renderValue('{% for i in (1..100000000) %}{{ i }}{% endfor %}', context)).rejects.toThrow(/limit exceeded/);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('stops a long render at the render time limit', async () => {
    const quick = createTemplateEngine({ renderLimit: 50 });
    const template = '{% for i in (1..100000) %}{% for j in (1..100000) %}x{% endfor %}{% endfor %}';
    await expect(quick.renderValue(template, context)).rejects.toThrow(/template render limit exceeded/);
  });

  it('refuses templates longer than the parse limit', async () => {
    const small = createTemplateEngine({ parseLimit: 100 });
    await expect(small.renderValue('x'.repeat(101), context)).rejects.toThrow(/parse length limit exceeded/);
    expect(await small.renderValue('x'.repeat(100), context)).toBe('x'.repeat(100));
  });

  it('refuses a render that allocates past the memory limit', async () => {
    const small = createTemplateEngine({ memoryLimit: 1_000 });
    await expect(small.renderValue('{% for i in (1..5000) %}{% endfor %}', context)).rejects.toThrow(/memory alloc limit exceeded/);
    expect(await small.renderValue('{% for i in (1..5) %}{{ i }}{% endfor %}', context)).toBe('12345');
  });
});

describe('evaluateCondition', () => {
  it('evaluates a bare Liquid expression to a boolean', async () => {
    expect(await engine.evaluateCondition('trigger.severity == "high" and case.tags contains "mail"', context)).toBe(true);
    expect(await engine.evaluateCondition('trigger.count > 5 or case.tags contains "malware"', context)).toBe(false);
    expect(await engine.evaluateCondition('trigger.flagged', context)).toBe(true);
  });

  it('accepts the expression wrapped in {{ }}', async () => {
    expect(await engine.evaluateCondition('{{ trigger.severity == "high" }}', context)).toBe(true);
    expect(await engine.evaluateCondition('  {{ trigger.count >= 3 }} ', context)).toBe(true);
  });

  it('treats a comparison with an undefined variable as false', async () => {
    expect(await engine.evaluateCondition('trigger.nothing == "x"', context)).toBe(false);
  });

  it('throws naming the expression when the result is not a boolean', async () => {
    await expect(engine.evaluateCondition('trigger.count', context)).rejects.toThrow('condition "trigger.count" must evaluate to true or false, not number 3');
    await expect(engine.evaluateCondition('{{ case.key }}', context)).rejects.toThrow(/not string "CASE-7"/);
    await expect(engine.evaluateCondition('trigger.nothing', context)).rejects.toThrow(/not null/);
    await expect(engine.evaluateCondition('trigger.ips', context)).rejects.toThrow(/not a list/);
  });

  it('throws on a malformed expression instead of evaluating it to false', async () => {
    for (const expr of ['trigger.count ==', 'trigger.count 3', 'trigger.count == 3 )', '{{ a }} and {{ b }}', '', 'a | nope']) {
      await expect(engine.evaluateCondition(expr, context)).rejects.toThrow(TemplateError);
    }
    await expect(engine.evaluateCondition('trigger.count ==', context)).rejects.toThrow(
      'condition "trigger.count ==" is invalid: operator "==" is missing an operand',
    );
  });
});

describe('checkTemplate and checkCondition', () => {
  it('return null for text that parses', () => {
    expect(engine.checkTemplate('Hello {{ case.key | upcase }} {% if trigger.count > 1 %}many{% endif %}')).toBeNull();
    expect(engine.checkTemplate('no template at all')).toBeNull();
    expect(engine.checkCondition('not trigger.flagged')).toBeNull();
    expect(engine.checkCondition('{{ case.tags contains "x" }}')).toBeNull();
  });

  it('return the parse error message otherwise', () => {
    expect(engine.checkTemplate('{{ case.key | shout }}')).toMatch(/undefined filter: shout/);
    expect(engine.checkTemplate('{% for x in y %}')).toMatch(/not closed/);
    expect(engine.checkTemplate('{{ a == }}')).toBe('operator "==" is missing an operand');
    expect(engine.checkTemplate('{% if a b %}x{% endif %}')).toBe('values must be joined by an operator');
    expect(engine.checkCondition('a b')).toBe('values must be joined by an operator');
    expect(engine.checkCondition('{{ a }} x')).toBe('a condition is one expression, optionally wrapped in {{ }}');
  });

  it('ignore expressions inside comments', () => {
    expect(engine.checkTemplate('{% comment %}{{ a == }}{% endcomment %}ok')).toBeNull();
  });

  it('do not render: checking a template with a huge loop returns at once', () => {
    expect(engine.checkTemplate('{% for i in (1..100000000) %}{{ i }}{% endfor %}')).toBeNull();
  });
});

describe('mayRead', () => {
  it('is false only when no template can reach the variable', () => {
    expect(engine.mayRead({ tags_add: ['bench'], note: 'IP {{ trigger.ip }}', n: 3, x: null }, 'case')).toBe(false);
    expect(engine.mayRead({}, 'case')).toBe(false);
    expect(engine.mayRead('{{ steps.a.output[0] }} {{ steps.a.output["k"][1] }}', 'case')).toBe(false);
  });

  it('is true for a template naming it, in a value, a list, a condition or a loop', () => {
    expect(engine.mayRead({ note: { text: 'Case {{ case.key }}' } }, 'case')).toBe(true);
    expect(engine.mayRead([null, 'case.tags contains "x"'], 'case')).toBe(true);
    expect(engine.mayRead(['{{ trigger.ips }}', '{% for t in case.tags %}{{ t }}{% endfor %}'], 'case')).toBe(true);
  });

  it('is true for a lookup by computed name, which could reach any variable', async () => {
    const template = '{% assign k = "ca" | append: "se" %}{{ [k].title }}';
    expect(await engine.renderValue(template, { case: { title: 'T' } })).toBe('T');
    expect(engine.mayRead(template, 'case')).toBe(true);
    expect(engine.mayRead('{{ [trigger.field] }}', 'case')).toBe(true);
  });
});
