/**
 * The transaction monitor: leases due broadcast records, gathers chain evidence with batched RPC
 * calls per chain, applies the spec's resolution rules and saves the outcome.
 *
 * One `runOnce()`:
 * 1. Finality first: `store.waitingForFinality()` names the chains with records whose own
 *    transaction was seen but not final yet (`evidenceBlock`: EVM receipt block, Solana status
 *    slot), and one head read per such chain tells how far finality reaches (`evmCoveredUpTo`,
 *    `getFinalizedSlot`); runs in flight share one reading for `headsMaxAgeMs`. Then
 *    `store.leaseDue(owner, now, now + leaseMs, batchSize, covered)`: the records whose evidence
 *    finality now covers, then those whose next check is due, none that another monitor holds
 *    (leases keep several processes apart). So a final transaction is checked on the next run,
 *    not at its next scheduled check; the schedule (`nextCheckDelay`) stays as the fallback.
 * 2. Per chain, in parallel:
 *    - EVM: one `getHeads` and one `getReceipts` for every hash not seen on-chain before, then one
 *      `getBlockHashes` for the heights of receipts at or below the finalized head and one
 *      `getNonces(..., 'finalized')` for senders without a receipt. A receipt seen before its block
 *      was final is kept in the record (monitoring.receipt): later checks need only the heads until
 *      the finalized head reaches it, then the canonical hash at its height. When a
 *      finalized nonce has passed a record without a receipt, the same-nonce records of that
 *      wallet (`store.findByNonce`) and their receipts are fetched (one more `getReceipts`, one more
 *      `getBlockHashes`), together with the record's own receipt again, so a receipt that appeared
 *      between the two reads is never mistaken for a replacement.
 *    - Solana: one `getSignatureStatuses` for every signature; only for signatures without a
 *      status, the expiry proof (one `getFinalizedBlockHeight`, `isBlockhashValid` per partner
 *      transaction, `getNonceAccount` per durable-nonce transaction) and, for proven expiries, one
 *      more `getSignatureStatuses` to re-check after the proof.
 * 3. The pure rules (`evaluateEvm`, `evaluateSolana`) turn evidence into a verdict.
 * 4. Unchanged records are saved with ONE `store.reschedule`; the resolutions (and `pending` records
 *    found on-chain, which become `submitted`) with ONE `store.completeChecks`: outcome and events in
 *    one atomic statement, only for records this monitor still leases.
 *
 * Time comes only from the clock port. Events are written only when a record reaches
 * `confirmed`, `reverted` or `failed`; a monitoring deadline alone writes nothing.
 *
 * failureStage of monitor-detected failures: `broadcast`. A replaced, cancelled or expired
 * transaction was signed and sent but never executed on-chain, i.e. it broke at the broadcast
 * stage (rule 4 also files an accepted-but-unconfirmed broadcast under `broadcast`). The stage
 * `monitor_timeout` is never used: rule 5 says a monitoring deadline alone does not fail a record,
 * and every failure this monitor records is proven by chain evidence, not by a deadline.
 */
import type { EvidenceCoverage, MonitoringInfo, TransactionCompletion, TransactionRecord, TransactionReschedule, TransactionStore } from '../ports.ts';
import type { Clock } from '../shared/clock.ts';
import { broadcastedEvents, resolvedEvents } from './events.ts';
import type { ChainGateways, EvmGateway, EvmReceipt, Hex, SolanaGateway, SolanaSignatureStatus } from './gateways.ts';

// ------------------------------------------------------------------------------------------
// Cadence
// ------------------------------------------------------------------------------------------

export interface MonitorCadence {
  /** The active monitoring window (spec: 30 minutes); afterwards the record stays `submitted`, state `extended`. */
  activeWindowMs: number;
  /** Unresolved this long after creation: state `escalated` (spec: 24 hours). */
  escalateAfterMs: number;
  /** Between checks inside the active window, with or without evidence. */
  activeIntervalMs: number;
  /** Upper bound between checks once a receipt or signature status was seen (spec: 60 s). */
  evidenceIntervalMs: number;
  /** Between healthy checks without evidence after the active window, until escalation (spec: at most 5 min). */
  healthyIntervalMs: number;
  /** Between checks of an escalated record (spec: possibly one hour). */
  escalatedIntervalMs: number;
  /** First delay after an RPC error; doubles with every consecutive error. */
  errorBaseMs: number;
  /** Cap of the error backoff (spec: at most one hour). */
  maxBackoffMs: number;
}

export const DEFAULT_MONITOR_CADENCE: MonitorCadence = {
  activeWindowMs: 30 * 60_000,
  escalateAfterMs: 24 * 60 * 60_000,
  activeIntervalMs: 5_000,
  evidenceIntervalMs: 60_000,
  healthyIntervalMs: 5 * 60_000,
  escalatedIntervalMs: 60 * 60_000,
  errorBaseMs: 5_000,
  maxBackoffMs: 60 * 60_000,
};

/** How the last check went: no evidence yet, evidence (receipt / signature status) but unresolved, or the RPC failed. */
export type CheckOutcome = 'healthy' | 'evidence' | 'error';

export type MonitoringWindow = 'active' | 'extended' | 'escalated';

/** Where the record stands in its monitoring life, from its creation time. */
export function monitoringWindow(record: Pick<TransactionRecord, 'createdAt'>, now: Date, cadence: MonitorCadence = DEFAULT_MONITOR_CADENCE): MonitoringWindow {
  const age = now.getTime() - record.createdAt.getTime();
  if (age < cadence.activeWindowMs) return 'active';
  if (age < cadence.escalateAfterMs) return 'extended';
  return 'escalated';
}

/**
 * Milliseconds until the next check of an unresolved record after a check with `outcome`.
 * - RPC error: `errorBaseMs * 2^(n-1)` for the n-th consecutive error (n = record.consecutiveErrors + 1), capped at `maxBackoffMs`.
 * - Active window: `activeIntervalMs`.
 * - After it and before escalation: `healthyIntervalMs`, or at most `evidenceIntervalMs` once there is evidence.
 * - Escalated: `escalatedIntervalMs`.
 */
export function nextCheckDelay(
  record: Pick<TransactionRecord, 'createdAt' | 'evidenceAt' | 'consecutiveErrors'>,
  now: Date,
  outcome: CheckOutcome,
  cadence: MonitorCadence = DEFAULT_MONITOR_CADENCE,
): number {
  if (outcome === 'error') {
    const errors = record.consecutiveErrors + 1;
    return Math.min(cadence.maxBackoffMs, cadence.errorBaseMs * 2 ** Math.min(errors - 1, 40));
  }
  const window = monitoringWindow(record, now, cadence);
  if (window === 'escalated') return cadence.escalatedIntervalMs;
  const base = window === 'active' ? cadence.activeIntervalMs : cadence.healthyIntervalMs;
  const evidence = outcome === 'evidence' || record.evidenceAt !== null;
  return evidence ? Math.min(base, cadence.evidenceIntervalMs) : base;
}

// ------------------------------------------------------------------------------------------
// Rules (pure)
// ------------------------------------------------------------------------------------------

/** The fields a resolving check sets. */
export interface Resolution {
  status: 'confirmed' | 'reverted' | 'failed';
  blockNumber: bigint | null;
  blockHash: string | null;
  failureStage: TransactionRecord['failureStage'];
  failureCode: string | null;
  failureMessage: string | null;
  monitoring: MonitoringInfo;
  /** The record's own transaction reached the chain (it was broadcast, whatever its saved status). */
  landed: boolean;
}

export type Verdict =
  | { kind: 'resolve'; resolution: Resolution }
  /**
   * Unresolved. `evidence`: the record's own transaction was seen on-chain (receipt or signature
   * status); `position`: where (EVM block, Solana slot), when the record waits for it to become final.
   */
  | { kind: 'wait'; evidence: boolean; expiredSince?: string | null; receipt?: MonitoringInfo['receipt']; position?: bigint }
  | { kind: 'error'; message: string };

export interface EvmHeads {
  latest: bigint;
  finalized: bigint;
}

export interface EvmEvidence {
  heads: EvmHeads;
  receipt: EvmReceipt | null;
  /** The canonical block hash at the receipt's height (null when unknown or beyond the head). */
  canonicalHash: string | null;
  /** The sender's nonce at the finalized block; fetched only for records without a receipt. */
  finalizedNonce?: number;
  /** The other records of this wallet and chain with the same nonce, with their receipts; looked up only when the nonce was consumed. */
  siblings?: { record: Pick<TransactionRecord, 'id' | 'hash' | 'cancellationOf'>; receipt: EvmReceipt | null; canonicalHash: string | null }[];
}

/** A verdict for a transaction that reached the chain: confirmed, or reverted there (no failureStage, rule 3). */
const landedOnChain = (status: 'confirmed' | 'reverted', blockNumber: bigint, blockHash: string | null, failureMessage: string | null): Verdict => ({
  kind: 'resolve',
  resolution: { status, blockNumber, blockHash, failureStage: null, failureCode: null, failureMessage, monitoring: { state: 'resolved' }, landed: true },
});

/** A verdict for a transaction proven never to land: failed at stage `broadcast`. */
const neverLanded = (failureCode: string, failureMessage: string, monitoring: MonitoringInfo): Verdict => ({
  kind: 'resolve',
  resolution: { status: 'failed', blockNumber: null, blockHash: null, failureStage: 'broadcast', failureCode, failureMessage, monitoring, landed: false },
});

/**
 * Rule 1: a receipt counts only when its block is canonical (the chain's hash at that height is
 * the receipt's block hash), has at least two confirmations and is at or below the finalized head.
 */
export function isVerifiedReceipt(receipt: EvmReceipt, canonicalHash: string | null, heads: EvmHeads): boolean {
  if (!canonicalHash || canonicalHash.toLowerCase() !== receipt.blockHash.toLowerCase()) return false;
  if (heads.latest - receipt.blockNumber + 1n < 2n) return false;
  return receipt.blockNumber <= heads.finalized;
}

/**
 * The highest block that is at or below the finalized head and has two confirmations: a canonical
 * receipt at or below it satisfies rule 1.
 */
export function evmCoveredUpTo(heads: EvmHeads): bigint {
  return heads.finalized < heads.latest - 1n ? heads.finalized : heads.latest - 1n;
}

export function evaluateEvm(record: Pick<TransactionRecord, 'id' | 'nonce' | 'hash'>, ev: EvmEvidence): Verdict {
  if (ev.receipt) {
    if (!isVerifiedReceipt(ev.receipt, ev.canonicalHash, ev.heads)) return { kind: 'wait', evidence: true };
    const reverted = ev.receipt.status === 'reverted';
    // Rule 3: a revert reached the chain; failureStage stays absent.
    return landedOnChain(reverted ? 'reverted' : 'confirmed', ev.receipt.blockNumber, ev.receipt.blockHash, reverted ? 'execution reverted' : null);
  }
  // Same nonce: the nonce is spent at a finalized block and this hash has no receipt.
  if (record.nonce === null || ev.finalizedNonce === undefined || ev.finalizedNonce <= record.nonce) return { kind: 'wait', evidence: false };
  if (ev.siblings === undefined) return { kind: 'wait', evidence: false };
  const winner = ev.siblings.find((s) => s.record.id !== record.id && s.receipt && isVerifiedReceipt(s.receipt, s.canonicalHash, ev.heads));
  if (winner) {
    const cancelled = winner.record.cancellationOf === record.id;
    const winningStatus = winner.receipt!.status === 'success' ? 'confirmed' : 'reverted';
    return neverLanded(
      cancelled ? 'CANCELLED' : 'REPLACED',
      cancelled
        ? `Cancelled: the cancellation ${winner.record.hash} used nonce ${record.nonce} (${winningStatus}); this transaction can no longer execute`
        : `Replaced: transaction ${winner.record.hash} with the same nonce ${record.nonce} was included (${winningStatus}); this transaction can no longer execute`,
      { state: 'resolved', chainOutcome: cancelled ? 'cancelled' : 'replaced_by_same_nonce', winningHash: winner.record.hash, winningStatus },
    );
  }
  // A sibling was seen on-chain but cannot be verified yet (not final, or not canonical): wait for it.
  if (ev.siblings.some((s) => s.record.id !== record.id && s.receipt)) return { kind: 'wait', evidence: false };
  return neverLanded(
    'REPLACED',
    `Nonce ${record.nonce} was consumed in a finalized block by a transaction this service did not send; this transaction can no longer execute`,
    { state: 'resolved', chainOutcome: 'nonce_consumed_elsewhere', winningHash: null, winningStatus: null },
  );
}

export interface SolanaEvidence {
  /** The signature's status (after the re-check when expiry was being proven); null when the node does not know it. */
  status: SolanaSignatureStatus | null;
  /** Finalized block height, read before `status` (records with a last valid block height and no status). */
  finalizedHeight?: bigint;
  /** isBlockhashValid(recentBlockhash), read after a null status (partner transactions without a last valid block height). */
  blockhashValid?: boolean;
  /** The durable nonce now stored in the record's nonce account; null when the account is gone or no longer a nonce account. */
  durableNonce?: string | null;
}

const jsonText = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

export function evaluateSolana(
  record: Pick<TransactionRecord, 'recentBlockhash' | 'lastValidBlockHeight' | 'nonceAccount' | 'monitoring'>,
  ev: SolanaEvidence,
  now: Date,
): Verdict {
  const status = ev.status;
  if (status) {
    // Rule 2: only `finalized` resolves.
    if (status.confirmationStatus !== 'finalized') return { kind: 'wait', evidence: true, expiredSince: null };
    const failed = status.err !== null && status.err !== undefined;
    return landedOnChain(failed ? 'reverted' : 'confirmed', status.slot, null, failed ? `transaction failed: ${jsonText(status.err)}`.slice(0, 500) : null);
  }
  const expired = neverLanded(
    'TRANSACTION_EXPIRED',
    record.nonceAccount
      ? 'The durable nonce of this transaction was advanced without it landing; it can no longer execute'
      : 'The blockhash of this transaction expired without it landing; it can no longer execute',
    { state: 'resolved', chainOutcome: 'expired', winningHash: null, winningStatus: null },
  );
  // Rule 6: expiry only when proven.
  if (record.nonceAccount) {
    if (ev.durableNonce !== undefined && ev.durableNonce !== record.recentBlockhash) return expired;
    return { kind: 'wait', evidence: false };
  }
  if (record.lastValidBlockHeight !== null) {
    if (ev.finalizedHeight !== undefined && ev.finalizedHeight > record.lastValidBlockHeight) return expired;
    return { kind: 'wait', evidence: false };
  }
  if (ev.blockhashValid === false) {
    // Seen expired on an earlier check, and still no status now: nothing can have landed in between.
    if (record.monitoring?.expiredSince) return expired;
    return { kind: 'wait', evidence: false, expiredSince: now.toISOString() };
  }
  return { kind: 'wait', evidence: false, expiredSince: null };
}

// ------------------------------------------------------------------------------------------
// The monitor
// ------------------------------------------------------------------------------------------

export interface TransactionMonitorOptions {
  store: TransactionStore;
  gateways: ChainGateways;
  clock: Clock;
  isDevnet: (record: Pick<TransactionRecord, 'walletType' | 'chainId' | 'network'>) => boolean;
  /** This monitor's lease owner name (e.g. host:pid:random); unique per monitor. */
  owner: string;
  batchSize?: number;
  leaseMs?: number;
  cadence?: Partial<MonitorCadence>;
  /**
   * How long a run reuses another run's read of a chain's finality (default 250 ms), so concurrent
   * runs do not each read the heads. Only decides which records are leased early, never a verdict.
   */
  headsMaxAgeMs?: number;
}

export interface MonitorRunResult {
  /** Records leased (and checked) in this run. */
  leased: number;
  /** Records that reached confirmed, reverted or failed. */
  resolved: number;
  /** Records saved unchanged (new schedule only). */
  rescheduled: number;
  /** Gateway calls made; each is one HTTP request carrying a JSON-RPC batch (split only beyond the node's batch limit). */
  rpcCalls: number;
  /** Where the run's time went (ms): finality reads (waiting records, chain heads), leasing, chain reads, saving. */
  ms?: { finality: number; lease: number; chain: number; save: number };
}

const ACTIVE: TransactionRecord['status'][] = ['pending', 'submitted'];

const errorText = (error: unknown) => ((error as Error)?.message ?? String(error)).slice(0, 300);

export function createTransactionMonitor(options: TransactionMonitorOptions) {
  const { store, gateways, clock, isDevnet, owner } = options;
  const batchSize = options.batchSize ?? 500;
  const leaseMs = options.leaseMs ?? 60_000;
  const cadence: MonitorCadence = { ...DEFAULT_MONITOR_CADENCE, ...options.cadence };
  const headsMaxAgeMs = options.headsMaxAgeMs ?? 250;

  /** Counts gateway calls of one run. */
  class Calls {
    count = 0;
    run<T>(promise: Promise<T>): Promise<T> {
      this.count++;
      return promise;
    }
  }

  /** The receipt an earlier check saw (block not final then), kept in the record's monitoring. */
  function cachedReceipt(r: TransactionRecord): EvmReceipt | null {
    const c = r.monitoring?.receipt;
    if (!c) return null;
    return { transactionHash: r.hash as Hex, status: c.status, blockNumber: BigInt(c.blockNumber), blockHash: c.blockHash as Hex, from: r.fromAddress as Hex };
  }

  const chainKey = (r: Pick<TransactionRecord, 'walletType' | 'chainId' | 'network'>) => `${r.walletType}:${r.walletType === 'EVM' ? r.chainId : r.network}`;
  /** How far finality reaches on a chain (see EvidenceCoverage); null when unreadable. */
  function chainCoverage(walletType: TransactionRecord['walletType'], chain: string, calls: Calls): Promise<bigint | null> {
    let read: Promise<bigint> | undefined;
    if (walletType === 'EVM') {
      const gateway = gateways.evm(Number(chain));
      if (gateway) read = calls.run(gateway.getHeads()).then(evmCoveredUpTo);
    } else {
      const gateway = gateways.solana(chain);
      if (gateway) read = calls.run(gateway.getFinalizedSlot());
    }
    // Unreadable: those records wait for their scheduled check, which records the error.
    return read ? read.catch(() => null) : Promise.resolve(null);
  }

  interface Finality {
    /** Every chain read, by chainKey. */
    all: Map<string, bigint>;
    /** The chains where finality reached a waiting record. */
    covered: EvidenceCoverage[];
  }
  let lastFinality: { at: number; result: Promise<Finality> } | undefined;

  /**
   * Finality of every chain with records waiting for it: one DB query, one head read per chain.
   * Reused for `headsMaxAgeMs` by the runs in flight (older readings only lease less).
   */
  function finality(calls: Calls): Promise<Finality> {
    // performance.now, not the clock port: this bounds the read rate, it dates nothing.
    if (lastFinality && performance.now() - lastFinality.at < headsMaxAgeMs) return lastFinality.result;
    const result = (async () => {
      const waiting = await store.waitingForFinality();
      const all = new Map<string, bigint>();
      const covered: EvidenceCoverage[] = [];
      await Promise.all(
        waiting.map(async (w) => {
          const upTo = await chainCoverage(w.walletType, w.chain, calls);
          if (upTo === null) return;
          all.set(`${w.walletType}:${w.chain}`, upTo);
          if (upTo >= w.lowest) covered.push({ walletType: w.walletType, chain: w.chain, upTo });
        }),
      );
      return { all, covered };
    })();
    const entry = { at: performance.now(), result };
    lastFinality = entry;
    result.catch(() => {
      if (lastFinality === entry) lastFinality = undefined;
    });
    return result;
  }

  async function checkEvm(gateway: EvmGateway, chainId: string, records: TransactionRecord[], calls: Calls, verdicts: Map<string, Verdict>) {
    let heads: EvmHeads;
    const receipts: (EvmReceipt | null)[] = [];
    const fromCache: boolean[] = [];
    let canonical = new Map<bigint, string | null>();
    let finalizedNonces = new Map<string, number>();
    try {
      // Receipts only for records without one from an earlier check, one lookup per distinct hash
      // (a signed transaction broadcast twice has two records).
      const unique = [...new Set(records.filter((r) => !r.monitoring?.receipt).map((r) => r.hash!))];
      const [h, found] = await Promise.all([
        calls.run(gateway.getHeads()),
        unique.length ? calls.run(gateway.getReceipts(unique as Hex[])) : Promise.resolve([]),
      ]);
      heads = h;
      const byHash = new Map(unique.map((x, i) => [x, found[i] ?? null]));
      for (const r of records) {
        const cached = cachedReceipt(r);
        receipts.push(cached ?? byHash.get(r.hash!) ?? null);
        fromCache.push(cached !== null);
      }
      // Canonical hashes only where a receipt could resolve now: at or below the finalized head.
      const heights = [...new Set(receipts.filter((r): r is EvmReceipt => r !== null && r.blockNumber <= heads.finalized).map((r) => r.blockNumber))];
      const noReceipt = records.filter((r, i) => receipts[i] === null && r.nonce !== null);
      const senders = [...new Set(noReceipt.map((r) => r.fromAddress.toLowerCase()))];
      const [hashes, nonces] = await Promise.all([
        heights.length ? calls.run(gateway.getBlockHashes(heights)) : Promise.resolve([]),
        senders.length ? calls.run(gateway.getNonces(senders as Hex[], 'finalized')) : Promise.resolve([]),
      ]);
      canonical = new Map(heights.map((x, i) => [x, hashes[i] ?? null]));
      finalizedNonces = new Map(senders.map((x, i) => [x, nonces[i]!]));
    } catch (error) {
      for (const r of records) verdicts.set(r.id, { kind: 'error', message: errorText(error) });
      return;
    }

    const evidence = new Map<string, EvmEvidence>();
    const consumed: TransactionRecord[] = [];
    records.forEach((r, i) => {
      const receipt = receipts[i]!;
      const finalizedNonce = receipt ? undefined : finalizedNonces.get(r.fromAddress.toLowerCase());
      evidence.set(r.id, { heads, receipt, canonicalHash: receipt ? (canonical.get(receipt.blockNumber) ?? null) : null, finalizedNonce });
      if (!receipt && r.nonce !== null && finalizedNonce !== undefined && finalizedNonce > r.nonce) consumed.push(r);
    });

    if (consumed.length > 0) {
      try {
        // Who else used these nonces, and their receipts; our own receipts again, read after the nonce.
        const siblingLists = await Promise.all(consumed.map((r) => store.findByNonce(r.walletId, chainId, r.nonce!)));
        const hashes = new Set<string>();
        consumed.forEach((r, i) => {
          hashes.add(r.hash!);
          for (const s of siblingLists[i]!) if (s.id !== r.id && s.hash) hashes.add(s.hash);
        });
        const list = [...hashes];
        const found = await calls.run(gateway.getReceipts(list as Hex[]));
        const byHash = new Map(list.map((h, i) => [h, found[i] ?? null]));
        const heights = [...new Set(found.filter((x): x is EvmReceipt => x !== null).map((x) => x.blockNumber))].filter((h) => !canonical.has(h));
        if (heights.length) {
          const more = await calls.run(gateway.getBlockHashes(heights));
          heights.forEach((h, i) => canonical.set(h, more[i] ?? null));
        }
        consumed.forEach((r, i) => {
          const own = byHash.get(r.hash!) ?? null;
          const prior = evidence.get(r.id)!;
          if (own) {
            evidence.set(r.id, { heads: prior.heads, receipt: own, canonicalHash: canonical.get(own.blockNumber) ?? null });
            return;
          }
          prior.siblings = siblingLists[i]!
            .filter((s) => s.id !== r.id && s.hash)
            .map((s) => {
              const receipt = byHash.get(s.hash!) ?? null;
              return { record: s, receipt, canonicalHash: receipt ? (canonical.get(receipt.blockNumber) ?? null) : null };
            });
        });
      } catch (error) {
        for (const r of consumed) verdicts.set(r.id, { kind: 'error', message: errorText(error) });
      }
    }
    records.forEach((r, i) => {
      if (verdicts.has(r.id)) return;
      const ev = evidence.get(r.id)!;
      const verdict = evaluateEvm(r, ev);
      if (verdict.kind === 'wait' && ev.receipt) {
        const receipt = ev.receipt;
        if (!fromCache[i] || ev.receipt !== receipts[i]) {
          // Seen now: keep it, so the next checks only need the heads until its block is final.
          verdict.receipt = { blockNumber: receipt.blockNumber.toString(), blockHash: receipt.blockHash, status: receipt.status };
        } else if (receipt.blockNumber <= ev.heads.finalized) {
          // Final but no longer canonical (a reorganisation): look the receipt up afresh next time.
          verdict.receipt = null;
        }
        if (verdict.receipt !== null) verdict.position = receipt.blockNumber;
      }
      verdicts.set(r.id, verdict);
    });
  }

  async function checkSolana(gateway: SolanaGateway, records: TransactionRecord[], now: Date, calls: Calls, verdicts: Map<string, Verdict>) {
    let statuses: (SolanaSignatureStatus | null)[];
    try {
      const unique = [...new Set(records.map((r) => r.hash!))];
      const found = await calls.run(gateway.getSignatureStatuses(unique));
      const byHash = new Map(unique.map((x, i) => [x, found[i] ?? null]));
      statuses = records.map((r) => byHash.get(r.hash!) ?? null);
    } catch (error) {
      for (const r of records) verdicts.set(r.id, { kind: 'error', message: errorText(error) });
      return;
    }
    const evidence = new Map<string, SolanaEvidence>(records.map((r, i) => [r.id, { status: statuses[i] ?? null }]));
    const unknown = records.filter((_, i) => !statuses[i]);
    if (unknown.length > 0) {
      // Expiry proofs, for signatures the node does not know.
      const proofFailed = new Set<string>();
      const byHeight = unknown.filter((r) => !r.nonceAccount && r.lastValidBlockHeight !== null);
      const byBlockhash = unknown.filter((r) => !r.nonceAccount && r.lastValidBlockHeight === null && r.recentBlockhash);
      const byNonce = unknown.filter((r) => r.nonceAccount && r.recentBlockhash);
      const tasks: Promise<void>[] = [];
      if (byHeight.length) {
        tasks.push(
          calls.run(gateway.getFinalizedBlockHeight()).then(
            (height) => byHeight.forEach((r) => (evidence.get(r.id)!.finalizedHeight = height)),
            (error) => byHeight.forEach((r) => (proofFailed.add(r.id), verdicts.set(r.id, { kind: 'error', message: errorText(error) }))),
          ),
        );
      }
      for (const r of byBlockhash) {
        tasks.push(
          calls.run(gateway.isBlockhashValid(r.recentBlockhash!)).then(
            (valid) => void (evidence.get(r.id)!.blockhashValid = valid),
            (error) => void (proofFailed.add(r.id), verdicts.set(r.id, { kind: 'error', message: errorText(error) })),
          ),
        );
      }
      for (const r of byNonce) {
        tasks.push(
          calls.run(gateway.getNonceAccount(r.nonceAccount!)).then(
            (state) => void (evidence.get(r.id)!.durableNonce = state?.nonce ?? null),
            (error) => void (proofFailed.add(r.id), verdicts.set(r.id, { kind: 'error', message: errorText(error) })),
          ),
        );
      }
      await Promise.all(tasks);
      // A proof read after the status: re-read the status of every record the proof would fail, so a
      // transaction that landed between the two reads is seen.
      const candidates = unknown.filter((r) => {
        if (proofFailed.has(r.id)) return false;
        const v = evaluateSolana(r, evidence.get(r.id)!, now);
        return v.kind === 'resolve' && (r.nonceAccount !== null || r.lastValidBlockHeight !== null);
      });
      if (candidates.length > 0) {
        try {
          const again = await calls.run(gateway.getSignatureStatuses(candidates.map((r) => r.hash!)));
          candidates.forEach((r, i) => (evidence.get(r.id)!.status = again[i] ?? null));
        } catch (error) {
          for (const r of candidates) verdicts.set(r.id, { kind: 'error', message: errorText(error) });
        }
      }
    }
    for (const r of records) {
      if (verdicts.has(r.id)) continue;
      const ev = evidence.get(r.id)!;
      const verdict = evaluateSolana(r, ev, now);
      if (verdict.kind === 'wait' && ev.status) verdict.position = ev.status.slot;
      verdicts.set(r.id, verdict);
    }
  }

  function waitingMonitoring(record: TransactionRecord, now: Date, extra: Partial<MonitoringInfo>): MonitoringInfo {
    const { state: _state, lastError: _lastError, ...rest } = record.monitoring ?? {};
    const monitoring: MonitoringInfo = { ...rest, state: monitoringWindow(record, now, cadence), lastError: null, ...extra };
    if (monitoring.expiredSince === undefined || monitoring.expiredSince === null) delete monitoring.expiredSince;
    if (monitoring.receipt === undefined || monitoring.receipt === null) delete monitoring.receipt;
    return monitoring;
  }

  return {
    owner,
    batchSize,

    async runOnce(): Promise<MonitorRunResult> {
      const now = clock.now();
      const t0 = performance.now();
      const calls = new Calls();
      const reached = await finality(calls);
      const tf = performance.now();
      const leased = await store.leaseDue(owner, now, new Date(now.getTime() + leaseMs), batchSize, reached.covered);
      const t1 = performance.now();
      if (leased.length === 0) return { leased: 0, resolved: 0, rescheduled: 0, rpcCalls: calls.count };

      const verdicts = new Map<string, Verdict>();
      const finished: TransactionRecord[] = [];
      const evm = new Map<string, TransactionRecord[]>();
      const solana = new Map<string, TransactionRecord[]>();
      for (const r of leased) {
        if (!ACTIVE.includes(r.status)) {
          // Resolved elsewhere (e.g. the broadcast step saved a refusal) while due: stop checking it.
          finished.push(r);
          continue;
        }
        const key = r.walletType === 'EVM' ? r.chainId : r.network;
        if (!r.hash || !key) {
          verdicts.set(r.id, { kind: 'error', message: 'missing_context: the record has no hash or chain' });
          continue;
        }
        const groups = r.walletType === 'EVM' ? evm : solana;
        const group = groups.get(key);
        if (group) group.push(r);
        else groups.set(key, [r]);
      }
      const checks: Promise<void>[] = [];
      for (const [chainId, records] of evm) {
        const gateway = gateways.evm(Number(chainId));
        if (!gateway) records.forEach((r) => verdicts.set(r.id, { kind: 'error', message: `missing_context: chain ${chainId} is not configured` }));
        else checks.push(checkEvm(gateway, chainId, records, calls, verdicts));
      }
      for (const [network, records] of solana) {
        const gateway = gateways.solana(network);
        if (!gateway) records.forEach((r) => verdicts.set(r.id, { kind: 'error', message: `missing_context: network ${network} is not configured` }));
        else checks.push(checkSolana(gateway, records, now, calls, verdicts));
      }
      await Promise.all(checks);
      const t2 = performance.now();

      const at = clock.now();
      // Where a waiting record is leased again early. A position finality had already reached when
      // this run started, yet the check did not resolve (the node's answers disagreed, e.g. a
      // status still behind its finalized slot), moves one past that reading, so such a record is
      // re-checked as finality advances, never on every run.
      const positionOf = (r: TransactionRecord, verdict: Extract<Verdict, { kind: 'wait' }>) => {
        if (verdict.position === undefined) return null;
        const upTo = reached.all.get(chainKey(r));
        return upTo !== undefined && verdict.position <= upTo ? upTo + 1n : verdict.position;
      };
      const reschedules: TransactionReschedule[] = [];
      const completions: TransactionCompletion[] = [];
      for (const r of leased) {
        const verdict = verdicts.get(r.id);
        if (!verdict) continue;
        if (verdict.kind === 'resolve') {
          const { landed, ...resolution } = verdict.resolution;
          const becameSubmitted = landed && r.status === 'pending';
          const completion: TransactionCompletion = {
            id: r.id,
            ...resolution,
            submittedAt: becameSubmitted ? at : r.submittedAt,
            resolvedAt: at,
            evidenceAt: landed ? (r.evidenceAt ?? at) : r.evidenceAt,
            evidenceBlock: null,
            nextCheckAt: null,
            consecutiveErrors: 0,
            events: [],
          };
          const final: TransactionRecord = { ...r, ...completion };
          const devnet = isDevnet(r);
          completion.events = [
            // A pending record (its broadcast outcome never saved) that landed was broadcast after all.
            ...(becameSubmitted ? broadcastedEvents({ ...r, status: 'submitted', submittedAt: at }, devnet, at) : []),
            ...resolvedEvents(final, devnet, at),
          ];
          completions.push(completion);
          continue;
        }
        if (verdict.kind === 'error') {
          const state = verdict.message.startsWith('missing_context') ? 'missing_context' : undefined;
          const monitoring = waitingMonitoring(r, at, { lastError: verdict.message, ...(state ? { state } : {}) });
          if (!state && r.evidenceAt && monitoring.state !== 'escalated') monitoring.state = 'finality_unavailable';
          reschedules.push({
            id: r.id,
            nextCheckAt: new Date(at.getTime() + nextCheckDelay(r, at, 'error', cadence)),
            consecutiveErrors: r.consecutiveErrors + 1,
            evidenceAt: r.evidenceAt,
            // Kept, but not leased early until a check succeeds again (the error backoff holds).
            evidenceBlock: r.evidenceBlock,
            monitoring,
          });
          continue;
        }
        const evidenceAt = verdict.evidence ? (r.evidenceAt ?? at) : r.evidenceAt;
        const monitoring = waitingMonitoring(r, at, {
          ...(verdict.expiredSince !== undefined ? { expiredSince: verdict.expiredSince } : {}),
          ...(verdict.receipt !== undefined ? { receipt: verdict.receipt } : {}),
        });
        const nextCheckAt = new Date(at.getTime() + nextCheckDelay({ ...r, evidenceAt }, at, verdict.evidence ? 'evidence' : 'healthy', cadence));
        if (verdict.evidence && r.status === 'pending') {
          // Its transaction is on-chain: the broadcast happened even though its outcome was never saved.
          completions.push({
            id: r.id,
            status: 'submitted',
            blockNumber: r.blockNumber,
            blockHash: r.blockHash,
            failureStage: r.failureStage,
            failureCode: r.failureCode,
            failureMessage: r.failureMessage,
            monitoring,
            submittedAt: at,
            resolvedAt: null,
            evidenceAt,
            evidenceBlock: positionOf(r, verdict),
            nextCheckAt,
            consecutiveErrors: 0,
            events: broadcastedEvents({ ...r, status: 'submitted', submittedAt: at }, isDevnet(r), at),
          });
          continue;
        }
        reschedules.push({ id: r.id, nextCheckAt, consecutiveErrors: 0, evidenceAt, evidenceBlock: positionOf(r, verdict), monitoring });
      }

      const resolving = new Set(completions.filter((c) => c.resolvedAt !== null).map((c) => c.id));
      const [rescheduled, saved] = await Promise.all([
        store.reschedule(owner, reschedules),
        store.completeChecks(owner, completions),
        // Resolved elsewhere (e.g. the broadcast step saved a refusal) while due: stop checking it.
        Promise.all(finished.map((r) => store.completeCheck(owner, r.id, { nextCheckAt: null, evidenceBlock: null }, []))),
      ]);
      const resolved = saved.filter((id) => resolving.has(id)).length;
      const ms = { finality: Math.round(tf - t0), lease: Math.round(t1 - tf), chain: Math.round(t2 - t1), save: Math.round(performance.now() - t2) };
      return { leased: leased.length, resolved, rescheduled, rpcCalls: calls.count, ms };
    },
  };
}

export type TransactionMonitor = ReturnType<typeof createTransactionMonitor>;
