import { describe, expect, it } from 'vitest';
import type { TransactionRecord } from '../ports.ts';
import type { EvmReceipt } from './gateways.ts';
import {
  DEFAULT_MONITOR_CADENCE as C,
  evaluateEvm,
  evaluateSolana,
  evmCoveredUpTo,
  isVerifiedReceipt,
  monitoringWindow,
  nextCheckDelay,
  type EvmEvidence,
} from './monitor-rules.ts';

const MIN = 60_000;
const HOUR = 60 * MIN;
const created = new Date(Date.UTC(2030, 0, 1));
const at = (ms: number) => new Date(created.getTime() + ms);
const rec = (over: Partial<Pick<TransactionRecord, 'evidenceAt' | 'consecutiveErrors'>> = {}) => ({ createdAt: created, evidenceAt: null, consecutiveErrors: 0, ...over });

describe('monitor cadence (nextCheckDelay)', () => {
  it('checks a fresh record without evidence every second (its first check often precedes its block)', () => {
    expect(nextCheckDelay(rec(), at(1_000), 'healthy')).toBe(C.freshIntervalMs);
    expect(nextCheckDelay(rec(), at(C.freshWindowMs - 1), 'healthy')).toBe(C.freshIntervalMs);
    expect(nextCheckDelay(rec(), at(1_000), 'evidence')).toBe(C.activeIntervalMs);
    expect(C.freshIntervalMs).toBeLessThan(C.activeIntervalMs);
  });

  it('keeps the spec limits with the defaults', () => {
    expect(C.activeWindowMs).toBe(30 * MIN);
    expect(C.healthyIntervalMs).toBeLessThanOrEqual(5 * MIN);
    expect(C.evidenceIntervalMs).toBeLessThanOrEqual(60_000);
    expect(C.maxBackoffMs).toBeLessThanOrEqual(HOUR);
    expect(C.escalateAfterMs).toBe(24 * HOUR);
  });

  it('checks every few seconds in the 30-minute active window, with or without evidence', () => {
    expect(nextCheckDelay(rec(), at(C.freshWindowMs), 'healthy')).toBe(C.activeIntervalMs);
    expect(nextCheckDelay(rec(), at(29 * MIN), 'evidence')).toBe(C.activeIntervalMs);
    expect(C.activeIntervalMs).toBeLessThanOrEqual(C.evidenceIntervalMs);
    expect(monitoringWindow(rec(), at(29 * MIN))).toBe('active');
  });

  it('after the window: at most 5 minutes while healthy, every 60 s once there is evidence', () => {
    expect(monitoringWindow(rec(), at(30 * MIN))).toBe('extended');
    expect(nextCheckDelay(rec(), at(31 * MIN), 'healthy')).toBe(5 * MIN);
    expect(nextCheckDelay(rec(), at(23 * HOUR), 'healthy')).toBe(5 * MIN);
    expect(nextCheckDelay(rec(), at(31 * MIN), 'evidence')).toBe(60_000);
    // Evidence seen on an earlier check still counts.
    expect(nextCheckDelay(rec({ evidenceAt: at(10 * MIN) }), at(40 * MIN), 'healthy')).toBe(60_000);
  });

  it('escalates after 24 hours and checks hourly', () => {
    expect(monitoringWindow(rec(), at(24 * HOUR))).toBe('escalated');
    expect(nextCheckDelay(rec(), at(24 * HOUR + 1), 'healthy')).toBe(HOUR);
    expect(nextCheckDelay(rec({ evidenceAt: at(MIN) }), at(25 * HOUR), 'evidence')).toBe(HOUR);
  });

  it('backs off exponentially on RPC errors, capped at one hour', () => {
    const delays = [0, 1, 2, 3, 10, 11, 50, 5000].map((n) => nextCheckDelay(rec({ consecutiveErrors: n }), at(MIN), 'error'));
    expect(delays.slice(0, 4)).toEqual([5_000, 10_000, 20_000, 40_000]);
    expect(delays.slice(4)).toEqual([HOUR, HOUR, HOUR, HOUR]);
    for (let n = 1; n < 40; n++) {
      expect(nextCheckDelay(rec({ consecutiveErrors: n }), at(MIN), 'error')).toBeGreaterThanOrEqual(nextCheckDelay(rec({ consecutiveErrors: n - 1 }), at(MIN), 'error'));
    }
  });

  it('takes test overrides', () => {
    const fast = { ...C, activeIntervalMs: 100, evidenceIntervalMs: 50 };
    expect(nextCheckDelay(rec(), at(1_000), 'evidence', fast)).toBe(50);
    expect(nextCheckDelay(rec(), at(1_000), 'healthy', fast)).toBe(100);
  });
});

const HASH_A = `0x${'aa'.repeat(32)}` as const;
const HASH_B = `0x${'bb'.repeat(32)}` as const;
const receipt = (blockNumber: bigint, status: EvmReceipt['status'] = 'success', blockHash: `0x${string}` = HASH_B): EvmReceipt => ({
  transactionHash: HASH_A,
  status,
  blockNumber,
  blockHash,
  from: '0x0000000000000000000000000000000000000001',
});
const evmRecord = { id: 'r1', nonce: 7, hash: HASH_A };

describe('EVM rules (evaluateEvm)', () => {
  const heads = { latest: 100n, finalized: 98n };
  const ev = (over: Partial<EvmEvidence>): EvmEvidence => ({ heads, receipt: null, canonicalHash: null, ...over });

  it('needs a canonical receipt with two confirmations at or below the finalized head', () => {
    expect(isVerifiedReceipt(receipt(98n), HASH_B, heads)).toBe(true);
    expect(isVerifiedReceipt(receipt(99n), HASH_B, heads)).toBe(false); // above finalized
    expect(isVerifiedReceipt(receipt(98n), HASH_A, heads)).toBe(false); // not canonical
    expect(isVerifiedReceipt(receipt(98n), null, heads)).toBe(false);
    expect(isVerifiedReceipt(receipt(100n), HASH_B, { latest: 100n, finalized: 100n })).toBe(false); // one confirmation
    expect(isVerifiedReceipt(receipt(99n), HASH_B.toUpperCase().replace('0X', '0x'), { latest: 100n, finalized: 100n })).toBe(true);
  });

  it('leases a receipt early exactly when rule 1 can hold: at or below evmCoveredUpTo', () => {
    for (const h of [heads, { latest: 100n, finalized: 100n }, { latest: 100n, finalized: 99n }, { latest: 5n, finalized: 0n }]) {
      const upTo = evmCoveredUpTo(h);
      expect(isVerifiedReceipt(receipt(upTo), HASH_B, h), JSON.stringify(h, (_k, v) => String(v))).toBe(true);
      expect(isVerifiedReceipt(receipt(upTo + 1n), HASH_B, h)).toBe(false);
    }
    expect(evmCoveredUpTo({ latest: 100n, finalized: 100n })).toBe(99n); // the head block has one confirmation
  });

  it('confirms, or marks reverted with block fields and no failureStage', () => {
    expect(evaluateEvm(evmRecord, ev({ receipt: receipt(98n), canonicalHash: HASH_B }))).toMatchObject({
      kind: 'resolve',
      resolution: { status: 'confirmed', blockNumber: 98n, blockHash: HASH_B, failureStage: null, landed: true },
    });
    expect(evaluateEvm(evmRecord, ev({ receipt: receipt(98n, 'reverted'), canonicalHash: HASH_B }))).toMatchObject({
      kind: 'resolve',
      resolution: { status: 'reverted', blockNumber: 98n, blockHash: HASH_B, failureStage: null, failureCode: null, failureMessage: 'execution reverted' },
    });
    expect(evaluateEvm(evmRecord, ev({ receipt: receipt(99n), canonicalHash: HASH_B }))).toEqual({ kind: 'wait', evidence: true });
    expect(evaluateEvm(evmRecord, ev({ receipt: receipt(98n), canonicalHash: HASH_A }))).toEqual({ kind: 'wait', evidence: true });
  });

  it('waits while a dropped transaction leaves its nonce unused', () => {
    expect(evaluateEvm(evmRecord, ev({ finalizedNonce: 7 }))).toEqual({ kind: 'wait', evidence: false });
    expect(evaluateEvm(evmRecord, ev({}))).toEqual({ kind: 'wait', evidence: false });
  });

  it('marks a record replaced or cancelled when a verified same-nonce sibling won', () => {
    const winner = { receipt: { ...receipt(97n), transactionHash: HASH_B }, canonicalHash: HASH_B };
    const replaced = evaluateEvm(evmRecord, ev({ finalizedNonce: 8, siblings: [{ record: { id: 'r2', hash: HASH_B, cancellationOf: null }, ...winner }] }));
    expect(replaced).toMatchObject({
      kind: 'resolve',
      resolution: { status: 'failed', failureStage: 'broadcast', failureCode: 'REPLACED', monitoring: { chainOutcome: 'replaced_by_same_nonce', winningHash: HASH_B, winningStatus: 'confirmed' } },
    });
    const cancelled = evaluateEvm(evmRecord, ev({ finalizedNonce: 8, siblings: [{ record: { id: 'r2', hash: HASH_B, cancellationOf: 'r1' }, ...winner, receipt: { ...winner.receipt, status: 'success' } }] }));
    expect(cancelled).toMatchObject({ resolution: { failureCode: 'CANCELLED', monitoring: { chainOutcome: 'cancelled', winningHash: HASH_B } } });
    const revertedWinner = evaluateEvm(evmRecord, ev({ finalizedNonce: 8, siblings: [{ record: { id: 'r2', hash: HASH_B, cancellationOf: null }, ...winner, receipt: { ...winner.receipt, status: 'reverted' } }] }));
    expect(revertedWinner).toMatchObject({ resolution: { failureCode: 'REPLACED', monitoring: { winningStatus: 'reverted' } } });
  });

  it('waits for an unverifiable sibling, and blames a foreign transaction only when no sibling landed', () => {
    const unfinal = { record: { id: 'r2', hash: HASH_B, cancellationOf: null }, receipt: { ...receipt(100n), transactionHash: HASH_B }, canonicalHash: HASH_B };
    expect(evaluateEvm(evmRecord, ev({ finalizedNonce: 8, siblings: [unfinal] }))).toEqual({ kind: 'wait', evidence: false });
    expect(evaluateEvm(evmRecord, ev({ finalizedNonce: 8 }))).toEqual({ kind: 'wait', evidence: false }); // siblings not looked up
    expect(evaluateEvm(evmRecord, ev({ finalizedNonce: 8, siblings: [{ ...unfinal, receipt: null, canonicalHash: null }] }))).toMatchObject({
      kind: 'resolve',
      resolution: { status: 'failed', failureCode: 'REPLACED', monitoring: { chainOutcome: 'nonce_consumed_elsewhere', winningHash: null } },
    });
  });
});

describe('Solana rules (evaluateSolana)', () => {
  const now = new Date(Date.UTC(2030, 0, 1));
  const transfer = { recentBlockhash: 'hash1', lastValidBlockHeight: 500n, nonceAccount: null, monitoring: null };
  const partner = { ...transfer, lastValidBlockHeight: null };
  const durable = { ...partner, nonceAccount: 'NonceAcc111' };

  it('resolves only at finalized: confirmed, or reverted with the error', () => {
    expect(evaluateSolana(transfer, { status: { slot: 42n, confirmationStatus: 'confirmed', err: null } }, now)).toMatchObject({ kind: 'wait', evidence: true });
    expect(evaluateSolana(transfer, { status: { slot: 42n, confirmationStatus: 'finalized', err: null } }, now)).toMatchObject({
      kind: 'resolve',
      resolution: { status: 'confirmed', blockNumber: 42n, blockHash: null, failureStage: null },
    });
    const reverted = evaluateSolana(transfer, { status: { slot: 43n, confirmationStatus: 'finalized', err: { InstructionError: [0, { Custom: 1 }] } } }, now);
    expect(reverted).toMatchObject({ kind: 'resolve', resolution: { status: 'reverted', blockNumber: 43n, failureStage: null } });
    expect((reverted as { resolution: { failureMessage: string } }).resolution.failureMessage).toContain('InstructionError');
  });

  it('expires a transfer only once the finalized height passed its last valid block height', () => {
    expect(evaluateSolana(transfer, { status: null }, now)).toEqual({ kind: 'wait', evidence: false });
    expect(evaluateSolana(transfer, { status: null, finalizedHeight: 500n }, now)).toEqual({ kind: 'wait', evidence: false });
    expect(evaluateSolana(transfer, { status: null, finalizedHeight: 501n }, now)).toMatchObject({
      kind: 'resolve',
      resolution: { status: 'failed', failureStage: 'broadcast', failureCode: 'TRANSACTION_EXPIRED' },
    });
  });

  it('expires a partner transaction only on a second check that still finds no status', () => {
    const first = evaluateSolana(partner, { status: null, blockhashValid: false }, now);
    expect(first).toEqual({ kind: 'wait', evidence: false, expiredSince: now.toISOString() });
    const second = evaluateSolana({ ...partner, monitoring: { expiredSince: now.toISOString() } }, { status: null, blockhashValid: false }, now);
    expect(second).toMatchObject({ kind: 'resolve', resolution: { failureCode: 'TRANSACTION_EXPIRED' } });
    expect(evaluateSolana(partner, { status: null, blockhashValid: true }, now)).toEqual({ kind: 'wait', evidence: false, expiredSince: null });
    // A status that appears in between resets the proof.
    expect(evaluateSolana({ ...partner, monitoring: { expiredSince: now.toISOString() } }, { status: { slot: 1n, confirmationStatus: 'processed', err: null } }, now)).toEqual({
      kind: 'wait',
      evidence: true,
      expiredSince: null,
    });
  });

  it('expires a durable-nonce transaction when its nonce moved on', () => {
    expect(evaluateSolana(durable, { status: null, durableNonce: 'hash1' }, now)).toEqual({ kind: 'wait', evidence: false });
    expect(evaluateSolana(durable, { status: null }, now)).toEqual({ kind: 'wait', evidence: false });
    expect(evaluateSolana(durable, { status: null, durableNonce: 'hash2' }, now)).toMatchObject({ resolution: { failureCode: 'TRANSACTION_EXPIRED' } });
    expect(evaluateSolana(durable, { status: null, durableNonce: null }, now)).toMatchObject({ resolution: { failureCode: 'TRANSACTION_EXPIRED' } });
  });
});
