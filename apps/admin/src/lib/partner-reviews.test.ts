import { describe, expect, it } from 'vitest';
import { decisionNote, isDecidable, partnerDecisionLabel, reviewerLabel, timeLeft, withDecisions } from './partner-reviews.ts';

const at = Date.parse('2026-01-01T12:00:00.000Z');
const plus = (ms: number) => new Date(at + ms).toISOString();

describe('timeLeft', () => {
  it('counts down in seconds, minutes and hours, rounding up to the whole second', () => {
    expect(timeLeft(plus(12_000), at)).toBe('12s left');
    expect(timeLeft(plus(11_001), at)).toBe('12s left');
    expect(timeLeft(plus(4 * 60_000 + 5_000), at)).toBe('4m 05s left');
    expect(timeLeft(plus(5 * 60_000), at)).toBe('5m 00s left');
    expect(timeLeft(plus(62 * 60_000), at)).toBe('1h 02m left');
  });

  it('is expired at and after the expiry, and a dash for an unreadable date', () => {
    expect(timeLeft(plus(0), at)).toBe('expired');
    expect(timeLeft(plus(-1), at)).toBe('expired');
    expect(timeLeft('soon', at)).toBe('—');
  });
});

describe('decision labels', () => {
  it('names the decider and the decision', () => {
    expect(reviewerLabel({ type: 'staff', id: '1a2b3c4d-0000-4000-8000-000000000000' })).toBe('staff member 1a2b3c4d…');
    expect(reviewerLabel({ type: 'api_key', id: 'abcdef012345' })).toBe('API key abcdef01…');
    expect(reviewerLabel(null)).toBe('—');
    expect([partnerDecisionLabel('approve'), partnerDecisionLabel('reject'), partnerDecisionLabel(null)]).toEqual(['approved', 'rejected', 'waiting']);
  });

  it('decides only a pending review, and explains an answer that is not the decision asked for', () => {
    expect(isDecidable('pending')).toBe(true);
    for (const status of ['approved', 'rejected', 'expired', 'consumed', 'invalidated', 'cancelled']) expect(isDecidable(status)).toBe(false);
    expect(decisionNote('approve', 'approved')).toBeNull();
    expect(decisionNote('reject', 'rejected')).toBeNull();
    expect(decisionNote('approve', 'expired')).toBe('Not approved: the review was already expired.');
    expect(decisionNote('reject', 'approved')).toBe('Not rejected: the review was already approved.');
  });
});

describe('withDecisions', () => {
  const row = (reviewId: string, createdAt: string, status = 'pending') => ({ reviewId, createdAt, status });

  it('shows a decided row in place with its new status, and keeps it once the pending list drops it', () => {
    const rows = [row('c', '3'), row('b', '2'), row('a', '1')];
    const decided = { b: row('b', '2', 'approved') };
    expect(withDecisions(rows, decided)).toEqual([row('c', '3'), row('b', '2', 'approved'), row('a', '1')]);
    expect(withDecisions([row('c', '3'), row('a', '1')], decided)).toEqual([row('c', '3'), row('b', '2', 'approved'), row('a', '1')]);
    expect(withDecisions(rows, {})).toEqual(rows);
  });
});
