import { describe, expect, it } from 'vitest';
import { lineColumnOf, listEntries, locateJsonPath, parseDraft } from './policy-draft.ts';

const draft = `{
  "id": "cap",
  "rules": [
    { "id": "a", "condition": { "fact": "request.value.baseUnits", "op": "gt", "value": 1000 } }
  ]
}`;

describe('parseDraft', () => {
  it('parses JSON as JSON.parse does', () => {
    expect(parseDraft(draft)).toEqual({ ok: true, value: JSON.parse(draft) });
    expect(parseDraft('[1, -2.5e3, true, null, "a\\"b"]')).toEqual({ ok: true, value: [1, -2500, true, null, 'a"b'] });
  });

  it('reports a syntax error with its line and column', () => {
    const broken = draft.replace('"op": "gt",', '"op": "gt"');
    const result = parseDraft(broken);
    expect(result).toMatchObject({ ok: false, message: expect.stringMatching(/^Expected "," or "}" at line 4, column \d+$/) });
    expect(parseDraft('')).toEqual({ ok: false, message: 'The draft is empty', offset: null });
    expect(parseDraft('{"a": 1} x')).toMatchObject({ ok: false, message: 'Unexpected text after the document at line 1, column 10', offset: 9 });
    expect(parseDraft('{"a": 1,}')).toMatchObject({ ok: false, message: expect.stringContaining('Expected a key') });
    expect(parseDraft('{"a": [1')).toMatchObject({ ok: false, message: expect.stringContaining('Unexpected end of the text') });
  });
});

describe('locateJsonPath', () => {
  it('finds the text of the value at a dotted path', () => {
    const range = locateJsonPath(draft, 'rules.0.condition.value')!;
    expect(draft.slice(range.start, range.end)).toBe('1000');
    const id = locateJsonPath(draft, 'rules.0.id')!;
    expect(draft.slice(id.start, id.end)).toBe('"a"');
    expect(locateJsonPath(draft, '')).toEqual({ start: 0, end: draft.length });
  });

  it('falls back to the closest existing ancestor for a missing key; null when the text is not JSON', () => {
    const range = locateJsonPath(draft, 'rules.0.effect')!;
    expect(draft.slice(range.start, range.end)).toMatch(/^\{ "id": "a".*\}$/);
    expect(locateJsonPath('{', 'id')).toBeNull();
  });
});

describe('helpers', () => {
  it('lineColumnOf counts from 1', () => {
    expect(lineColumnOf('ab\ncd', 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumnOf('ab\ncd', 4)).toEqual({ line: 2, column: 2 });
  });
  it('listEntries splits on commas and whitespace', () => {
    expect(listEntries(' 0xa, 0xb\n0xc ,, ')).toEqual(['0xa', '0xb', '0xc']);
  });
});
