/**
 * The integrity block of an integration pack (domain/integration-packs/integrity.ts;
 * SPEC.md "Integration pack": SHA-256 over the canonical YAML without that block): the
 * canonical form is pinned to exact text and digest, is blind to how the YAML is
 * written and sees every change of data, reads back as the same data, and the block is
 * written last, replacing an old one and keeping the author's comments.
 */
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { canonicalPackText, packDigest, readPackText, withIntegrity } from '../../../domain/integration-packs/integrity.ts';

const tiny = `# A tiny pack
format: integration-pack
format_version: 1
name: tiny
version: 1.0.0
title: Tiny
publisher: Ünïcode & "quotes"
connection_kinds: [http]
actions:
  - spec:
      name: custom.tiny.ping
      title: Ping
      transport: http
      http:
        method: GET
        path: /ping
      effect_type: none
      risk: read
`;

/** The same data as `tiny`, written another way each time. */
const rewrites: Record<string, string> = {
  'comments everywhere': `# header
format: integration-pack # the format
format_version: 1
# the name
name: tiny
version: 1.0.0
title: Tiny
publisher: Ünïcode & "quotes"
connection_kinds: [http] # kinds only
actions:
  # one action
  - spec:
      name: custom.tiny.ping
      title: Ping
      transport: http
      http:
        method: GET
        path: /ping
      effect_type: none
      risk: read
`,
  'key order': `actions:
  - spec:
      risk: read
      effect_type: none
      http: { path: /ping, method: GET }
      transport: http
      title: Ping
      name: custom.tiny.ping
connection_kinds: [http]
publisher: Ünïcode & "quotes"
title: Tiny
version: 1.0.0
name: tiny
format_version: 1
format: integration-pack
`,
  quoting: `format: "integration-pack"
format_version: 1
name: 'tiny'
version: "1.0.0"
title: "Tiny"
publisher: 'Ünïcode & "quotes"'
connection_kinds: ["http"]
actions:
  - spec:
      name: "custom.tiny.ping"
      title: 'Ping'
      transport: "http"
      http:
        method: "GET"
        path: '/ping'
      effect_type: "none"
      risk: 'read'
`,
  'indentation and flow style': `format:    integration-pack
format_version: 1
name: tiny
version: 1.0.0
title: Tiny
publisher: "\\u00dcn\\u00efcode & \\"quotes\\""
connection_kinds:
    - http
actions:
    -   spec: {name: custom.tiny.ping, title: Ping, transport: http, http: {method: GET, path: /ping}, effect_type: none, risk: read}
`,
  'number spelling (data is plain JSON: 1.0 is the number 1)': tiny.replace('format_version: 1', 'format_version: 1.0'),
  'anchors and aliases': `format: integration-pack
format_version: 1
name: tiny
version: 1.0.0
title: Tiny
publisher: Ünïcode & "quotes"
connection_kinds: [&kind http]
actions:
  - spec:
      name: custom.tiny.ping
      title: Ping
      transport: *kind
      http: {method: GET, path: /ping}
      effect_type: none
      risk: read
`,
};

/** Edits of `tiny` that each change its data. */
const dataChanges: Record<string, [string, string]> = {
  version: ['version: 1.0.0', 'version: 1.0.1'],
  'a string gains a space': ['title: Tiny', 'title: "Tiny "'],
  'a number becomes a string': ['format_version: 1', 'format_version: "1"'],
  'a list item is added': ['connection_kinds: [http]', 'connection_kinds: [http, ssh]'],
  'a key is added': ['title: Tiny', 'title: Tiny\ndescription: ""'],
  'a nested value': ['path: /ping', 'path: /pong'],
  'a string becomes null': ['title: Tiny', 'title: null'],
};

const dataOf = (text: string): Record<string, unknown> => {
  const read = readPackText(text);
  if (!read.ok) throw new Error(read.msg);
  return read.data;
};

describe('canonical form', () => {
  it('is RFC 8785 canonical JSON of the data without integrity, hashed as UTF-8: pinned text and digest', () => {
    const expected =
      '{"actions":[{"spec":{"effect_type":"none","http":{"method":"GET","path":"/ping"},"name":"custom.tiny.ping","risk":"read","title":"Ping","transport":"http"}}],' +
      '"connection_kinds":["http"],"format":"integration-pack","format_version":1,"name":"tiny","publisher":"Ünïcode & \\"quotes\\"","title":"Tiny","version":"1.0.0"}';
    expect(canonicalPackText(dataOf(tiny))).toBe(expected);
    // sha256sum of the text above, computed outside this code base.
    expect(packDigest(dataOf(tiny))).toBe('5c007e80d4874896469432481c2ad035c5a61c818a21891f0e4a7cb430f77d81');
    const built = withIntegrity(tiny);
    expect(built).toMatchObject({ ok: true, digest: '5c007e80d4874896469432481c2ad035c5a61c818a21891f0e4a7cb430f77d81' });
    expect(canonicalPackText(dataOf(built.ok ? built.text : ''))).toBe(expected);
  });

  it.each(Object.entries(rewrites))('does not change with %s', (_how, text) => {
    expect(canonicalPackText(dataOf(text))).toBe(canonicalPackText(dataOf(tiny)));
    expect(withIntegrity(text)).toMatchObject({ ok: true, digest: packDigest(dataOf(tiny)) });
  });

  it.each(Object.entries(dataChanges))('changes with any data change: %s', (_what, [from, to]) => {
    const changed = tiny.replace(from, to);
    expect(changed).not.toBe(tiny);
    expect(packDigest(dataOf(changed))).not.toBe(packDigest(dataOf(tiny)));
  });

  it('keeps list order, which is data', () => {
    const both = tiny.replace('connection_kinds: [http]', 'connection_kinds: [http, ssh]');
    const reversed = tiny.replace('connection_kinds: [http]', 'connection_kinds: [ssh, http]');
    expect(packDigest(dataOf(both))).not.toBe(packDigest(dataOf(reversed)));
  });

  it('reads back as YAML to the same data', () => {
    for (const text of [tiny, ...Object.values(rewrites)]) {
      const data = dataOf(text);
      expect(parse(canonicalPackText(data))).toEqual(data);
    }
    const awkward = { s: 'a\u2028b\u0000"\\/é😀', n: [0, -1.5, 1e21, 5e-324], t: true, z: null, nested: { '': [] } };
    expect(parse(canonicalPackText(awkward))).toEqual(awkward);
  });

  it('leaves out the integrity block, whatever it holds', () => {
    const data = dataOf(tiny);
    expect(canonicalPackText({ ...data, integrity: { algorithm: 'sha256', digest: 'f'.repeat(64) } })).toBe(canonicalPackText(data));
  });
});

describe('readPackText', () => {
  it('reads the data, the integrity value and whether it is last', () => {
    const built = withIntegrity(tiny);
    if (!built.ok) throw new Error(built.msg);
    const read = readPackText(built.text);
    expect(read).toMatchObject({ ok: true, trailing: true, integrity: { algorithm: 'sha256', digest: built.digest } });
    expect(readPackText(tiny)).toMatchObject({ ok: true, integrity: undefined, trailing: false });
  });

  it.each([
    ['a duplicate key', 'name: a\nname: b\n'],
    ['a list at the top', '- a\n- b\n'],
    ['a scalar', 'just text\n'],
    ['two documents', 'a: 1\n---\nb: 2\n'],
    ['a value JSON cannot carry', 'a: .inf\n'],
    ['an undefined alias', 'a: *nowhere\n'],
  ])('refuses %s', (_what, text) => {
    expect(readPackText(text)).toMatchObject({ ok: false, msg: expect.any(String) });
  });
});

describe('withIntegrity', () => {
  it('appends the block last and is idempotent', () => {
    const built = withIntegrity(tiny);
    if (!built.ok) throw new Error(built.msg);
    expect(built.text).toBe(`${tiny}integrity:\n  algorithm: sha256\n  digest: ${built.digest}\n`);
    expect(withIntegrity(built.text)).toEqual(built);
  });

  it('replaces an existing block and keeps the comments', () => {
    const first = withIntegrity(tiny);
    if (!first.ok) throw new Error(first.msg);
    const edited = first.text.replace('version: 1.0.0', 'version: 1.1.0 # minor: a new output');
    const second = withIntegrity(edited);
    if (!second.ok) throw new Error(second.msg);
    expect(second.digest).not.toBe(first.digest);
    expect(second.text.match(/^integrity:/gm)).toHaveLength(1);
    expect(second.text).toContain('# A tiny pack\n');
    expect(second.text).toContain('version: 1.1.0 # minor: a new output\n');
    expect(second.text.endsWith(`integrity:\n  algorithm: sha256\n  digest: ${second.digest}\n`)).toBe(true);
    expect(readPackText(second.text)).toMatchObject({ ok: true, trailing: true });
  });

  it('replaces a block that was tampered with or malformed', () => {
    const built = withIntegrity(tiny);
    if (!built.ok) throw new Error(built.msg);
    expect(withIntegrity(built.text.replace(built.digest, '0'.repeat(64)))).toEqual(built);
    expect(withIntegrity(`${tiny}integrity: nonsense\n`)).toEqual(built);
  });

  it('refuses integrity anywhere but last', () => {
    const notLast = `integrity:\n  algorithm: sha256\n  digest: ${'0'.repeat(64)}\n${tiny}`;
    expect(readPackText(notLast)).toMatchObject({ ok: true, trailing: false });
    expect(withIntegrity(notLast)).toEqual({ ok: false, msg: 'the integrity block must be the last key of the document' });
  });

  it('refuses a flow-style document', () => {
    const flow =
      '{format: integration-pack, format_version: 1, name: tiny, version: 1.0.0, title: Tiny, publisher: me, connection_kinds: [http], actions: []}\n';
    expect(readPackText(flow)).toMatchObject({ ok: true });
    expect(withIntegrity(flow)).toEqual({ ok: false, msg: 'write the pack as a block-style YAML mapping' });
  });

  it('refuses text that is not a pack document', () => {
    expect(withIntegrity('- a\n')).toEqual({ ok: false, msg: 'a pack is a YAML mapping' });
  });
});
