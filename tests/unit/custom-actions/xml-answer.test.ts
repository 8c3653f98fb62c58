/**
 * XML answers read into nested objects (domain/custom-actions/xml-answer.ts; SPEC.md
 * "Exit and verdict handling": attributes as `@name`, text as `#text`, a repeated child
 * as a list, a document with a DTD stays text), and a custom action's declared outputs
 * extracted from one by their paths as from a JSON answer (render.ts `readAnswer`).
 */
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { extractOutputs, readAnswer } from '../../../domain/custom-actions/render.ts';
import { customActionSpecSchema } from '../../../domain/custom-actions/spec.ts';
import { isXmlContentType, readXmlAnswer } from '../../../domain/custom-actions/xml-answer.ts';

const read = (text: string) => {
  const answer = readXmlAnswer(text);
  if (!answer.read) throw new Error(`not read: ${answer.reason} ${answer.detail}`);
  return answer.document;
};

// The shape a firewall appliance's API answers in.
const FIREWALL = `<?xml version="1.0" encoding="UTF-8"?>
<!-- generated -->
<response status="success" code="19">
  <result total-count="2" count="2">
    <entry name="blocked-10.0.0.1" uuid="a-1">
      <ip-netmask>10.0.0.1</ip-netmask>
      <tag><member>svc</member><member>ttl</member></tag>
    </entry>
    <entry name="blocked-10.0.0.2" uuid="a-2">
      <ip-netmask>10.0.0.2</ip-netmask>
      <tag><member>svc</member></tag>
    </entry>
  </result>
  <msg lang="en">command succeeded</msg>
</response>`;

describe('readXmlAnswer', () => {
  it('reads attributes as @name, text-only elements as strings, text beside attributes as #text and repeated children as lists', () => {
    expect(read(FIREWALL)).toEqual({
      response: {
        '@status': 'success',
        '@code': '19',
        result: {
          '@total-count': '2',
          '@count': '2',
          entry: [
            { '@name': 'blocked-10.0.0.1', '@uuid': 'a-1', 'ip-netmask': '10.0.0.1', tag: { member: ['svc', 'ttl'] } },
            // One child is not a list: only a tag that repeats is.
            { '@name': 'blocked-10.0.0.2', '@uuid': 'a-2', 'ip-netmask': '10.0.0.2', tag: { member: 'svc' } },
          ],
        },
        msg: { '@lang': 'en', '#text': 'command succeeded' },
      },
    });
  });

  it('keeps every value a string, trimmed: no number or boolean coercion', () => {
    expect(read('<r n="007"><count> 42 </count><flag>true</flag><hex>0x1F</hex><empty/><blank>  </blank></r>')).toEqual({
      r: { '@n': '007', count: '42', flag: 'true', hex: '0x1F', empty: '', blank: '' },
    });
  });

  it('keeps namespace prefixes in element and attribute names', () => {
    const doc = read(
      '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><m:Result xmlns:m="urn:vendor" m:id="7">ok</m:Result></soap:Body></soap:Envelope>',
    );
    expect(doc).toEqual({
      'soap:Envelope': {
        '@xmlns:soap': 'http://schemas.xmlsoap.org/soap/envelope/',
        'soap:Body': { 'm:Result': { '@xmlns:m': 'urn:vendor', '@m:id': '7', '#text': 'ok' } },
      },
    });
  });

  it('reads mixed content, CDATA and nested lists, leaving comments and processing instructions out', () => {
    expect(read('<r>before<b>1</b>after<?pi data?><!-- c --><c><![CDATA[<not-a-tag> & raw]]></c><l><i><j>1</j></i><i><j>2</j><j>3</j></i></l></r>')).toEqual({
      r: { '#text': 'beforeafter', b: '1', c: '<not-a-tag> & raw', l: { i: [{ j: '1' }, { j: ['2', '3'] }] } },
    });
  });

  it('decodes the five predefined entities and character references once, and no other entity', () => {
    const doc = read('<r a="&quot;x&quot; &#65;">&amp;&lt;&gt;&apos; &#x42;&#67; &amp;lt; &nbsp;&copy;&undeclared; &#1;&#xD800;</r>');
    expect(doc).toEqual({ r: { '@a': '"x" A', '#text': `&<>' BC &lt; &nbsp;&copy;&undeclared; &#1;&#xD800;` } });
  });

  it('never parses a document with a DTD: internal and external entities and billion laughs stay text', () => {
    const internal = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY who "expanded">]><r>&who;</r>';
    const external = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><r>&xxe;</r>';
    const parameter = '<!DOCTYPE r SYSTEM "http://127.0.0.1:9/evil.dtd"><r/>';
    const lols = Array.from({ length: 9 }, (_, i) => `<!ENTITY lol${i + 1} "${`&lol${i};`.repeat(10)}">`).join('');
    const billionLaughs = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol0 "lol">${lols}]><lolz>&lol9;</lolz>`;
    const lowerCase = '<!doctype r><r/>';
    for (const text of [internal, external, parameter, billionLaughs, lowerCase]) {
      expect(readXmlAnswer(text)).toEqual({ read: false, reason: 'dtd', detail: expect.stringContaining('DTD') });
    }
    // An ENTITY declaration without a DOCTYPE is not well-formed, and stays text just the same.
    expect(readXmlAnswer('<r><!ENTITY e "x"></r>')).toMatchObject({ read: false, reason: 'dtd' });
  });

  it('leaves a document that is not well-formed, or has not exactly one root, as text with the reason', () => {
    for (const text of ['<r><a>1</a>', '<r a="1" a="2"/>', '<r a=1/>', 'not xml', '{"json": true}', '', '<a/><b/>', '<r></r>trailing text']) {
      expect(readXmlAnswer(text), text).toMatchObject({ read: false, reason: 'malformed' });
    }
    const deep = `<r>${'<a>'.repeat(150)}${'</a>'.repeat(150)}</r>`;
    expect(readXmlAnswer(deep)).toMatchObject({ read: false, reason: 'malformed' });
  });

  it('refuses element names that would reach the object prototype, and pollutes nothing', () => {
    expect(readXmlAnswer('<r><__proto__><polluted>yes</polluted></__proto__></r>')).toMatchObject({ read: false, reason: 'malformed' });
    expect(readXmlAnswer('<r><constructor>x</constructor></r>')).toMatchObject({ read: false, reason: 'malformed' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('isXmlContentType', () => {
  it('names application/xml, text/xml and +xml types, parameters and case aside', () => {
    for (const type of ['application/xml', 'text/xml; charset=utf-8', 'Application/XML', 'application/soap+xml; action="x"', 'application/atom+xml']) {
      expect(isXmlContentType(type), type).toBe(true);
    }
    for (const type of ['application/json', 'text/plain', 'application/xml-dtd', 'application/xhtml', 'xml', '', null, undefined]) {
      expect(isXmlContentType(type), String(type)).toBe(false);
    }
  });
});

describe('outputs of an XML answer', () => {
  const spec = v.parse(customActionSpecSchema, {
    name: 'custom.fw.lookup',
    title: 'Address object lookup',
    transport: 'http',
    http: { method: 'GET', path: '/api' },
    outputs: [
      { name: 'status', path: '$.response.@status', type: 'string' },
      { name: 'second', path: '$.response.result.entry[1].@name', type: 'string' },
      { name: 'first_tag', path: '$.response.result.entry[0].tag.member[1]', type: 'string' },
      { name: 'message', path: '$.response.msg.#text', type: 'string' },
      { name: 'count', path: '$.response.result.@count', type: 'integer' },
      { name: 'missing', path: '$.response.nothing', type: 'string' },
    ],
    effect_type: 'none',
    risk: 'read',
  });

  it('extracts them by their paths, the type check deciding: a string is not an integer', () => {
    expect(extractOutputs(spec, readAnswer(FIREWALL, 'application/xml').document, {})).toEqual({
      status: 'success',
      second: 'blocked-10.0.0.2',
      first_tag: 'ttl',
      message: 'command succeeded',
      count: null,
      missing: null,
    });
  });

  it('reads an XML body as JSON without an XML content type, and an XML answer that stays text yields only a `$` output', () => {
    expect(readAnswer(FIREWALL, 'application/json')).toEqual({ document: undefined, unread: null });
    const dtd = '<!DOCTYPE r><r/>';
    expect(readAnswer(dtd, 'text/xml')).toEqual({ document: dtd, unread: expect.stringContaining('stays text (dtd') });
    expect(readAnswer('', 'text/xml')).toEqual({ document: undefined, unread: null });
  });

  it('accepts @attribute, #text and prefix:tag names in an output path, and nothing else new', () => {
    const pathOk = (path: string) => v.safeParse(customActionSpecSchema, { ...spec, outputs: [{ name: 'x', path, type: 'string' }] }).success;
    for (const path of ['$.a.@b', '$.soap:Envelope.soap:Body.#text', '$.a[0].@xmlns:m']) expect(pathOk(path), path).toBe(true);
    for (const path of ['$.a.#b', '$.a.@', '$.@@a', '$.a.b c', '$.a.:b']) expect(pathOk(path), path).toBe(false);
  });
});
