/**
 * A line diff for comparing two policy versions side by side: the longest common subsequence of
 * lines (common head and tail trimmed first, so typical edits cost little), then rows pairing a
 * run of removed lines with the run of added lines that replaced it.
 */

export type DiffLine =
  | { kind: 'same'; text: string; left: number; right: number }
  | { kind: 'removed'; text: string; left: number }
  | { kind: 'added'; text: string; right: number };

/** One row of the side-by-side view; line numbers are 1-based. */
export interface DiffRow {
  left: { line: number; text: string; changed: boolean } | null;
  right: { line: number; text: string; changed: boolean } | null;
}

/** The lines of `before` and `after` as kept, removed and added, in order (an LCS diff). */
export function diffLines(before: readonly string[], after: readonly string[]): DiffLine[] {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const a = before.slice(head, before.length - tail);
  const b = after.slice(head, after.length - tail);

  // lcs[i][j]: length of the longest common subsequence of a[i..] and b[j..].
  const width = b.length + 1;
  const lcs = new Uint32Array((a.length + 1) * width);
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i * width + j] = a[i] === b[j] ? lcs[(i + 1) * width + j + 1]! + 1 : Math.max(lcs[(i + 1) * width + j]!, lcs[i * width + j + 1]!);
    }
  }

  const out: DiffLine[] = [];
  for (let k = 0; k < head; k++) out.push({ kind: 'same', text: before[k]!, left: k + 1, right: k + 1 });
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ kind: 'same', text: a[i]!, left: head + i + 1, right: head + j + 1 });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lcs[(i + 1) * width + j]! >= lcs[i * width + j + 1]!)) {
      // Removals before additions, as a unified diff shows a replaced line.
      out.push({ kind: 'removed', text: a[i]!, left: head + i + 1 });
      i++;
    } else {
      out.push({ kind: 'added', text: b[j]!, right: head + j + 1 });
      j++;
    }
  }
  for (let k = 0; k < tail; k++) {
    const left = before.length - tail + k;
    const right = after.length - tail + k;
    out.push({ kind: 'same', text: before[left]!, left: left + 1, right: right + 1 });
  }
  return out;
}

/** Rows for two columns: unchanged lines side by side, each removed run next to the added run that follows it. */
export function sideBySideRows(diff: readonly DiffLine[]): DiffRow[] {
  const rows: DiffRow[] = [];
  let k = 0;
  while (k < diff.length) {
    const line = diff[k]!;
    if (line.kind === 'same') {
      rows.push({ left: { line: line.left, text: line.text, changed: false }, right: { line: line.right, text: line.text, changed: false } });
      k++;
      continue;
    }
    const removed: { line: number; text: string; changed: boolean }[] = [];
    const added: { line: number; text: string; changed: boolean }[] = [];
    while (k < diff.length && diff[k]!.kind !== 'same') {
      const change = diff[k]!;
      if (change.kind === 'removed') removed.push({ line: change.left, text: change.text, changed: true });
      else if (change.kind === 'added') added.push({ line: change.right, text: change.text, changed: true });
      k++;
    }
    for (let r = 0; r < Math.max(removed.length, added.length); r++) rows.push({ left: removed[r] ?? null, right: added[r] ?? null });
  }
  return rows;
}

/** Pretty JSON split into lines: what the versions view compares. */
export const jsonLines = (value: unknown): string[] => JSON.stringify(value, null, 2).split('\n');
