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
 *    - Managed automatic retry (attempts.ts, with `autoRetry`): one more query loads the fee
 *      replacements of the leased records; their hashes join the receipts batch, a dropped last
 *      attempt is re-sent with its stored bytes, and a record stuck under the base fee gets a
 *      replacement (monitor-replace.ts: signed, stored, then sent). While such a record waits without
 *      a receipt, the chain's heads are read with the fee suggestion in one batch (`getHeadsAndFees`).
 *      Solana transfers: the signatures of every attempt join the statuses batch, the expiry proof
 *      is made for the last attempt, and a proven expiry gets a rebuild instead of a failure
 *      (monitor-rebuild.ts: one blockhash read per network, signed, stored, then sent).
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
 *
 * The rules are in monitor-rules.ts, the batched chain reads in monitor-evidence.ts.
 */
import type { EvidenceCoverage, MonitoringInfo, TransactionCompletion, TransactionRecord, TransactionReschedule, TransactionStore } from '../ports.ts';
import type { Clock } from '../shared/clock.ts';
import { sendRecorded } from './broadcast.ts';
import type { ChainTarget } from './context.ts';
import { broadcastedEvents, resolvedEvents } from './events.ts';
import type { ChainGateways, EvmFeeSuggestion } from './gateways.ts';
import type { AutoRetryOptions, TransactionAttempt } from './attempts.ts';
import { Calls, checkEvm, checkSolana } from './monitor-evidence.ts';
import { rebuildExpired } from './monitor-rebuild.ts';
import { replaceStalled } from './monitor-replace.ts';
import { rebroadcastCandidates, rebroadcastEvm, rebroadcastSolana, type Rebroadcast } from './monitor-rebroadcast.ts';
import { DEFAULT_MONITOR_CADENCE, evmCoveredUpTo, monitoringWindow, nextCheckDelay, type MonitorCadence, type Verdict } from './monitor-rules.ts';

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
  /**
   * Managed automatic retry of EVM `transfer` records (attempts.ts): the receipts of every attempt
   * are read with the record's, the last attempt is re-sent when dropped, and a record stuck under
   * the base fee gets a fee replacement in this run, under its lease. Absent: no replacements.
   */
  autoRetry?: AutoRetryOptions;
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

/**
 * Durable broadcast (monitor-rebroadcast.ts) of the records this run leased whose check found no
 * trace of their transaction on chain: per chain, in parallel; a failed read re-sends nothing.
 */
async function rebroadcastUnknown(
  { gateways, store, clock, isDevnet }: Pick<TransactionMonitorOptions, 'gateways' | 'store' | 'clock' | 'isDevnet'>,
  evm: Map<string, TransactionRecord[]>,
  solana: Map<string, TransactionRecord[]>,
  verdicts: Map<string, Verdict>,
  now: Date,
  calls: Calls,
  lastAttempt: (r: TransactionRecord) => TransactionAttempt | undefined,
): Promise<Map<string, Rebroadcast>> {
  const unseen = (records: TransactionRecord[]) =>
    rebroadcastCandidates(
      records.filter((r) => {
        const v = verdicts.get(r.id);
        return v?.kind === 'wait' && !v.evidence;
      }),
      now,
    ).map((r) => {
      // A record with fee replacements: its last attempt is the one to keep in the node's pool.
      const last = lastAttempt(r);
      return last ? { ...r, hash: last.hash, signedTransaction: last.signedTransaction } : r;
    });
  // A pending record is sent as its request would have sent it; a transfer's own nonce goes back when refused.
  const sendPending = (target: ChainTarget) => (r: TransactionRecord) =>
    sendRecorded({ store, clock, isDevnet }, r, target, {
      resend: true,
      nonceToRelease: (r.intentKind === 'transfer' || r.intentKind === 'calls') && r.cancellationOf === null ? r.nonce : null,
      onUnreachable: 'keep-pending',
    });
  const runs: Promise<Map<string, Rebroadcast>>[] = [];
  for (const [chainId, records] of evm) {
    const gateway = gateways.evm(Number(chainId));
    if (gateway) runs.push(rebroadcastEvm(gateway, unseen(records), sendPending({ type: 'EVM', gateway, chainId }), calls));
  }
  for (const [network, records] of solana) {
    const gateway = gateways.solana(network);
    if (gateway) runs.push(rebroadcastSolana(gateway, unseen(records), sendPending({ type: 'SOLANA', gateway, network }), calls));
  }
  const outcomes = await Promise.all(runs.map((run) => run.catch(() => new Map<string, Rebroadcast>())));
  return new Map(outcomes.flatMap((m) => [...m]));
}

export function createTransactionMonitor(options: TransactionMonitorOptions) {
  const { store, gateways, clock, isDevnet, owner } = options;
  const batchSize = options.batchSize ?? 500;
  const leaseMs = options.leaseMs ?? 60_000;
  const cadence: MonitorCadence = { ...DEFAULT_MONITOR_CADENCE, ...options.cadence };
  const headsMaxAgeMs = options.headsMaxAgeMs ?? 250;

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

  function waitingMonitoring(record: TransactionRecord, now: Date, extra: Partial<MonitoringInfo>): MonitoringInfo {
    const { state: _state, lastError: _lastError, ...rest } = record.monitoring ?? {};
    const monitoring: MonitoringInfo = { ...rest, state: monitoringWindow(record, now, cadence), lastError: null, ...extra };
    if (monitoring.expiredSince === undefined || monitoring.expiredSince === null) delete monitoring.expiredSince;
    if (monitoring.receipt === undefined || monitoring.receipt === null) delete monitoring.receipt;
    return monitoring;
  }

  /**
   * Fee replacements of the EVM records waiting without a receipt for any attempt (attempts.ts),
   * per chain in parallel; none for a record whose last attempt the node just took again (one it
   * refused, e.g. under the base fee, is what a replacement is for). A stored
   * replacement the node took while the rebroadcast sent it is marked sent.
   */
  async function replaceAttempts(
    evm: Map<string, TransactionRecord[]>,
    verdicts: Map<string, Verdict>,
    rebroadcasts: Map<string, Rebroadcast>,
    attemptsOf: Map<string, TransactionAttempt[]>,
    heads: Map<string, bigint>,
    fees: Map<string, EvmFeeSuggestion>,
    calls: Calls,
  ): Promise<void> {
    const autoRetry = options.autoRetry;
    if (!autoRetry) return;
    const at = clock.now();
    const runs: Promise<unknown>[] = [];
    const byId = new Map([...evm.values()].flat().map((r) => [r.id, r]));
    for (const [recordId, outcome] of rebroadcasts) {
      const last = attemptsOf.get(recordId)?.at(-1);
      const record = byId.get(recordId);
      if (record && last && last.outcome === 'unknown' && outcome.outcome === 'sent') {
        runs.push(autoRetry.attempts.markSent(recordId, last.hash, at, broadcastedEvents({ ...record, hash: last.hash }, isDevnet(record), at)));
      }
    }
    for (const [chainId, records] of evm) {
      const gateway = gateways.evm(Number(chainId));
      const latest = heads.get(chainId);
      if (!gateway || latest === undefined) continue;
      const candidates = records
        .filter((r) => {
          const v = verdicts.get(r.id);
          return r.autoRetry === true && r.status === 'submitted' && v?.kind === 'wait' && !v.evidence && rebroadcasts.get(r.id)?.outcome !== 'sent' && r.nonce !== null && r.signedTransaction !== null;
        })
        .map((record) => ({ record, attempts: attemptsOf.get(record.id) ?? [] }));
      if (candidates.length > 0) runs.push(replaceStalled({ ...autoRetry, owner, clock, isDevnet }, gateway, candidates, latest, calls, fees.get(chainId)));
    }
    await Promise.all(runs.map((run) => run.catch(() => undefined)));
  }

  /**
   * Rebuilds of the managed Solana transfers proven expired in this run (monitor-rebuild.ts), per
   * network in parallel. A stored rebuild the node took while the rebroadcast sent it is marked sent.
   */
  async function rebuildAttempts(
    solana: Map<string, TransactionRecord[]>,
    verdicts: Map<string, Verdict>,
    rebroadcasts: Map<string, Rebroadcast>,
    attemptsOf: Map<string, TransactionAttempt[]>,
    finalizedHeights: Map<string, bigint>,
    calls: Calls,
  ): Promise<void> {
    const autoRetry = options.autoRetry;
    if (!autoRetry?.rebuilder) return;
    const at = clock.now();
    const runs: Promise<unknown>[] = [];
    for (const [network, records] of solana) {
      for (const record of records) {
        const last = attemptsOf.get(record.id)?.at(-1);
        if (last && last.outcome === 'unknown' && rebroadcasts.get(record.id)?.outcome === 'sent') {
          runs.push(autoRetry.attempts.markSent(record.id, last.hash, at, broadcastedEvents({ ...record, hash: last.hash }, isDevnet(record), at)));
        }
      }
      const gateway = gateways.solana(network);
      if (gateway) runs.push(rebuildExpired({ ...autoRetry, owner, clock, isDevnet }, gateway, records, verdicts, attemptsOf, finalizedHeights.get(network) ?? null, calls));
    }
    await Promise.all(runs.map((run) => run.catch(() => undefined)));
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
      const managed = options.autoRetry ? leased.filter((r) => r.autoRetry === true && ACTIVE.includes(r.status)) : [];
      const attemptsOf = managed.length > 0 ? await options.autoRetry!.attempts.forRecords(managed.map((r) => r.id)) : new Map<string, TransactionAttempt[]>();
      const replacementHashes = (r: TransactionRecord) => (attemptsOf.get(r.id) ?? []).map((a) => a.hash);
      const heads = new Map<string, bigint>();
      const fees = new Map<string, EvmFeeSuggestion>();
      // A managed record without a receipt may need a replacement: its chain's fees come with the heads.
      const mayReplace = (r: TransactionRecord) => r.autoRetry === true && r.status === 'submitted' && !r.monitoring?.receipt && r.nonce !== null && r.signedTransaction !== null;
      const finalizedHeights = new Map<string, bigint>();
      const checks: Promise<void>[] = [];
      for (const [chainId, records] of evm) {
        const gateway = gateways.evm(Number(chainId));
        if (!gateway) records.forEach((r) => verdicts.set(r.id, { kind: 'error', message: `missing_context: chain ${chainId} is not configured` }));
        else {
          checks.push(
            checkEvm(store, gateway, chainId, records, calls, verdicts, replacementHashes, managed.length > 0 && records.some(mayReplace)).then((h) => {
              if (h) heads.set(chainId, h.latest);
              if (h?.fees) fees.set(chainId, h.fees);
            }),
          );
        }
      }
      for (const [network, records] of solana) {
        const gateway = gateways.solana(network);
        if (!gateway) records.forEach((r) => verdicts.set(r.id, { kind: 'error', message: `missing_context: network ${network} is not configured` }));
        else {
          const rebuilds = (r: TransactionRecord) => attemptsOf.get(r.id) ?? [];
          checks.push(
            checkSolana(gateway, records, now, calls, verdicts, rebuilds).then((height) => {
              if (height !== null) finalizedHeights.set(network, height);
            }),
          );
        }
      }
      await Promise.all(checks);
      const lastAttempt = (r: TransactionRecord) => attemptsOf.get(r.id)?.at(-1);
      const rebroadcasts = await rebroadcastUnknown(options, evm, solana, verdicts, now, calls, lastAttempt);
      await Promise.all([replaceAttempts(evm, verdicts, rebroadcasts, attemptsOf, heads, fees, calls), rebuildAttempts(solana, verdicts, rebroadcasts, attemptsOf, finalizedHeights, calls)]);
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
        const rebroadcast = rebroadcasts.get(r.id);
        if (rebroadcast?.outcome === 'failed') {
          // Its re-send saved the refusal (failed, with its events): stop checking it.
          finished.push(r);
          continue;
        }
        const evidenceAt = verdict.evidence ? (r.evidenceAt ?? at) : r.evidenceAt;
        const monitoring = waitingMonitoring(r, at, {
          ...(verdict.expiredSince !== undefined ? { expiredSince: verdict.expiredSince } : {}),
          ...(verdict.receipt !== undefined ? { receipt: verdict.receipt } : {}),
          ...(rebroadcast ? { rebroadcasts: (r.monitoring?.rebroadcasts ?? 0) + 1, lastRebroadcastAt: at.toISOString() } : {}),
          ...(rebroadcast?.outcome === 'refused' ? { lastError: `rebroadcast refused (${rebroadcast.code}): ${rebroadcast.message}` } : {}),
          ...(r.autoRetry === true && !r.monitoring?.retryFrom && heads.has(r.chainId ?? '') ? { retryFrom: heads.get(r.chainId!)!.toString() } : {}),
        });
        const nextCheckAt = new Date(at.getTime() + nextCheckDelay({ ...r, evidenceAt }, at, verdict.evidence ? 'evidence' : 'healthy', cadence));
        // A pending record the node took on its re-send is `submitted` already (saved with its event).
        if (verdict.evidence && r.status === 'pending' && !rebroadcast) {
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
      const savedIds = new Set(saved);
      const settled = completions.filter((c) => c.resolvedAt !== null && savedIds.has(c.id) && (attemptsOf.get(c.id)?.length ?? 0) > 0);
      if (settled.length > 0) await options.autoRetry!.attempts.settle(settled.map((c) => ({ recordId: c.id, winningHash: c.monitoring?.winningHash ?? null })));
      const ms = { finality: Math.round(tf - t0), lease: Math.round(t1 - tf), chain: Math.round(t2 - t1), save: Math.round(performance.now() - t2) };
      return { leased: leased.length, resolved, rescheduled, rpcCalls: calls.count, ms };
    },
  };
}

export type TransactionMonitor = ReturnType<typeof createTransactionMonitor>;
