import { describe, expect, it } from 'vitest';
import { diffLines, jsonLines, sideBySideRows, type DiffLine } from './line-diff.ts';

/** The diff as `  x` / `- x` / `+ x`, like a unified diff without headers. */
const unified = (diff: DiffLine[]) => diff.map((d) => `${d.kind === 'same' ? ' ' : d.kind === 'removed' ? '-' : '+'} ${d.text}`);

describe('diffLines', () => {
  it('keeps equal inputs as they are', () => {
    expect(diffLines(['a', 'b'], ['a', 'b'])).toEqual([
      { kind: 'same', text: 'a', left: 1, right: 1 },
      { kind: 'same', text: 'b', left: 2, right: 2 },
    ]);
    expect(diffLines([], [])).toEqual([]);
  });

  it('reports additions and removals only, with the line numbers of each side', () => {
    expect(diffLines([], ['x'])).toEqual([{ kind: 'added', text: 'x', right: 1 }]);
    expect(diffLines(['x'], [])).toEqual([{ kind: 'removed', text: 'x', left: 1 }]);
    expect(diffLines(['a', 'b', 'c'], ['a', 'c'])).toEqual([
      { kind: 'same', text: 'a', left: 1, right: 1 },
      { kind: 'removed', text: 'b', left: 2 },
      { kind: 'same', text: 'c', left: 3, right: 2 },
    ]);
  });

  it('finds a longest common subsequence (a classic example)', () => {
    const diff = diffLines('ABCABBA'.split(''), 'CBABAC'.split(''));
    expect(diff.filter((d) => d.kind === 'same')).toHaveLength(4);
    // Applying the diff gives back both sides.
    expect(diff.filter((d) => d.kind !== 'added').map((d) => d.text).join('')).toBe('ABCABBA');
    expect(diff.filter((d) => d.kind !== 'removed').map((d) => d.text).join('')).toBe('CBABAC');
  });

  it('shows a changed value in pretty JSON as one removed and one added line', () => {
    const before = jsonLines({ id: 'cap', rules: [{ value: '100' }], version: '1' });
    const after = jsonLines({ id: 'cap', rules: [{ value: '200' }], version: '2' });
    expect(unified(diffLines(before, after)).filter((l) => !l.startsWith(' '))).toEqual([
      '-       "value": "100"',
      '+       "value": "200"',
      '-   "version": "1"',
      '+   "version": "2"',
    ]);
  });
});

describe('sideBySideRows', () => {
  it('pairs each removed run with the added run after it, padding the shorter side', () => {
    const rows = sideBySideRows(diffLines(['a', 'b', 'c', 'z'], ['a', 'B', 'C', 'D', 'z']));
    expect(rows).toEqual([
      { left: { line: 1, text: 'a', changed: false }, right: { line: 1, text: 'a', changed: false } },
      { left: { line: 2, text: 'b', changed: true }, right: { line: 2, text: 'B', changed: true } },
      { left: { line: 3, text: 'c', changed: true }, right: { line: 3, text: 'C', changed: true } },
      { left: null, right: { line: 4, text: 'D', changed: true } },
      { left: { line: 4, text: 'z', changed: false }, right: { line: 5, text: 'z', changed: false } },
    ]);
  });
});
