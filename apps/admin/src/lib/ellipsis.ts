/**
 * Where a long value is cut for a one-line cell: the head (shortened with an ellipsis by CSS when
 * the cell is too narrow) and the tail kept whole, so a hash or id keeps its last characters in
 * view. A value no longer than twice the tail is not split.
 */
export function splitForEllipsis(value: string, tail: number): { head: string; tail: string } {
  if (tail <= 0 || value.length <= tail * 2) return { head: value, tail: '' };
  return { head: value.slice(0, value.length - tail), tail: value.slice(value.length - tail) };
}
