/** API error answers in words (console/src/errors.ts, SPEC.md "Errors"). */
import { describe, expect, it } from 'vitest';
import { errorCode, errorMessage, errorProblems, problemsIn } from '../../../console/src/errors.ts';

describe('an error answer in words', () => {
  it("uses the service's own detail text", () => {
    expect(errorMessage(409, { detail: 'case is closed', code: 'case_closed', params: {} })).toBe('case is closed');
    expect(errorCode({ detail: 'case is closed', code: 'case_closed', params: {} })).toBe('case_closed');
  });

  it('names each invalid field of a validation failure, without the body prefix', () => {
    expect(
      errorMessage(422, {
        detail: [
          { loc: ['body', 'value'], msg: 'is not an IP address' },
          { loc: ['body'], msg: 'must be an object' },
          { loc: ['query', 'limit'], msg: 'too large' },
        ],
      }),
    ).toBe('value: is not an IP address; must be an object; query.limit: too large');
  });

  it("keeps a validation failure's items for a form to place, and none of another body", () => {
    const body = { detail: [{ loc: ['body', 'yaml_text', 'steps', '0', 'action'], msg: 'unknown action', type: 'runbook_invalid' }, { msg: 'no loc' }] };
    expect(errorProblems(body)).toEqual([{ loc: ['body', 'yaml_text', 'steps', '0', 'action'], msg: 'unknown action' }]);
    expect(errorProblems({ detail: 'case is closed' })).toEqual([]);
    expect(errorProblems(null)).toEqual([]);
  });

  it("reads an AI refusal's structured detail", () => {
    const body = { detail: { code: 'ai_disabled', message: 'AI is turned off for this install' }, code: 'ai_disabled', params: {} };
    expect(errorMessage(422, body)).toBe('AI is turned off for this install');
    expect(errorCode({ detail: { code: 'ai_disabled', message: 'x' } })).toBe('ai_disabled');
  });

  it('falls back to words for the status when the body says nothing', () => {
    expect(errorMessage(403, null)).toBe('You do not have permission to do that.');
    expect(errorMessage(504, '<html>gateway</html>')).toBe('The service failed to answer. Try again.');
    expect(errorMessage(418, {})).toBe('The request failed (HTTP 418).');
    expect(errorCode(null)).toBeNull();
  });

  it("reads the problems of one body field as paths into that field's value, and leaves the others", () => {
    const problems = [
      { loc: ['body', 'spec', 'http', 'path'], msg: 'a path' },
      { loc: ['body', 'spec', 'timeout_s'], msg: 'too long' },
      { loc: ['body', 'acknowledge_danger'], msg: 'required' },
      { loc: ['query', 'spec'], msg: 'not here' },
    ];
    expect(problemsIn(problems, 'spec')).toEqual([
      { loc: ['http', 'path'], msg: 'a path' },
      { loc: ['timeout_s'], msg: 'too long' },
    ]);
    expect(problemsIn(problems, 'yaml_text')).toEqual([]);
  });
});
