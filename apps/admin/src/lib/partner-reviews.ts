/**
 * Pure helpers of the partner review queue ("Reviews & cases" page): the time a review has left,
 * how a decision and its decider read, and the queue's rows once this session decided some.
 */

export type Reviewer = { type: string; id: string | null };

/** `4m 05s left`, `1h 02m left`, `12s left`; `expired` at or after `expiresAt`. */
export function timeLeft(expiresAt: string, now: number): string {
  const ms = Date.parse(expiresAt) - now;
  if (Number.isNaN(ms)) return '—';
  if (ms <= 0) return 'expired';
  const total = Math.ceil(ms / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const pad = (n: number) => String(n).padStart(2, '0');
  if (h > 0) return `${h}h ${pad(m)}m left`;
  return m > 0 ? `${m}m ${pad(s)}s left` : `${s}s left`;
}

/** Who decided: `staff member 1a2b3c4d…` (the console), `API key 1a2b3c4d…` (REST); `—` before a decision. */
export function reviewerLabel(by: Reviewer | null | undefined): string {
  if (!by) return '—';
  const who = by.type === 'staff' ? 'staff member' : by.type === 'api_key' ? 'API key' : by.type;
  return by.id ? `${who} ${by.id.slice(0, 8)}…` : who;
}

/** The case's partner review decision: `approved`, `rejected`, or `waiting` for the app. */
export function partnerDecisionLabel(decision: string | null): string {
  if (decision === 'approve') return 'approved';
  if (decision === 'reject') return 'rejected';
  return 'waiting';
}

/** Only a pending review takes a decision; any other answers with its final status. */
export const isDecidable = (status: string) => status === 'pending';

/**
 * The first decision is final and an ended review cannot be decided: when the answer is not the
 * decision asked for, say why (null when it is).
 */
export function decisionNote(asked: 'approve' | 'reject', status: string): string | null {
  if (status === (asked === 'approve' ? 'approved' : 'rejected')) return null;
  return `Not ${asked === 'approve' ? 'approved' : 'rejected'}: the review was already ${status}.`;
}

/**
 * The queue with this session's decisions: a decided row shows its new status in place, and stays
 * (newest first) after a refetch of the pending list has dropped it.
 */
export function withDecisions<R extends { reviewId: string; createdAt: string }>(rows: R[], decided: Record<string, R>): R[] {
  const shown = rows.map((row) => decided[row.reviewId] ?? row);
  const listed = new Set(rows.map((row) => row.reviewId));
  const gone = Object.values(decided).filter((row) => !listed.has(row.reviewId));
  return [...shown, ...gone].sort((x, y) => y.createdAt.localeCompare(x.createdAt) || y.reviewId.localeCompare(x.reviewId));
}
