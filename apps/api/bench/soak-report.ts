/**
 * The soak's verdict, from outside the service: the answers the partner got, the records in the
 * database, each wallet's nonces against its records and the chain, the payments the chain
 * executed (each transfer's recipient and value pair, counted), and the webhooks the receiver got
 * against the events of the project.
 */
import { chainNonces, minedTransactionsFrom, poolState, type Rpc } from './soak-chain.ts';
import type { ServiceEvents } from './soak-services.ts';
import type { PlannedTransfer, SoakWallet } from './soak-traffic.ts';

export type Query = <T>(text: string, values?: unknown[]) => Promise<T[]>;

interface RecordRow {
  id: string;
  wallet_id: string;
  status: string;
  nonce: number | null;
  hash: string | null;
  idempotency_key: string | null;
  failure_code: string | null;
}

/** How many nonces, and the lowest and highest of them (a stranded wallet can hold hundreds). */
export interface NonceSpan {
  count: number;
  lowest: number | null;
  highest: number | null;
}

const spanOf = (nonces: number[]): NonceSpan => ({ count: nonces.length, lowest: nonces.length ? Math.min(...nonces) : null, highest: nonces.length ? Math.max(...nonces) : null });

export interface WalletFinding {
  wallet: string;
  address: string;
  records: number;
  highestRecordNonce: number | null;
  /** Nonces below the highest record nonce that no record holds. */
  missingNonces: number[];
  unresolved: NonceSpan;
  chainLatestNonce: number;
  chainPendingNonce: number;
  queued: NonceSpan;
  /** The chain's next nonce is below the wallet's lowest unresolved record: nothing will ever fill it. */
  stranded: boolean;
  /** The allocator's next nonce and the nonces it holds for reuse (null: not readable in this schema). */
  allocatorNextNonce: number | null;
  releasedNonces: number[];
}

export interface KillRecord {
  slot: string;
  /** The soak's requests to that process still unanswered when the SIGKILL went out. */
  requestsInFlight: number;
  restartSeconds: number;
}

export interface ReportInput {
  projectId: string;
  wallets: SoakWallet[];
  transfers: PlannedTransfer[];
  services: ServiceEvents;
  kills: KillRecord[];
  subscribedTypes: string[];
  arrivals: Map<string, number>;
  fromBlock: number;
  seconds: { total: number; traffic: number; quiet: number };
  parameters: Record<string, unknown>;
  logDir: string;
}

const countBy = <T>(items: T[], key: (item: T) => string) => {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
};

/** Optional reads of the allocator's tables: another schema (a changed allocation) reads as unknown. */
async function allocatorState(query: Query) {
  const next = new Map<string, number>();
  const released = new Map<string, number[]>();
  let readable = true;
  try {
    for (const r of await query<{ wallet_id: string; next_nonce: number }>('SELECT wallet_id, next_nonce FROM nonce_counters')) next.set(r.wallet_id, Number(r.next_nonce));
    for (const r of await query<{ wallet_id: string; nonce: number }>('SELECT wallet_id, nonce FROM released_nonces ORDER BY nonce')) {
      released.set(r.wallet_id, [...(released.get(r.wallet_id) ?? []), Number(r.nonce)]);
    }
  } catch {
    readable = false;
  }
  return { next, released, readable };
}

export async function buildReport(input: ReportInput, query: Query, rpc: Rpc) {
  const { transfers, wallets } = input;
  const records = await query<RecordRow>(
    'SELECT id, wallet_id, status, nonce, hash, idempotency_key, failure_code FROM transaction_records WHERE project_id = $1',
    [input.projectId],
  );
  const recordIds = new Set(records.map((r) => r.id));
  const recordKeys = new Set(records.map((r) => r.idempotency_key));
  const recordHashes = new Set(records.map((r) => r.hash?.toLowerCase()).filter((h): h is string => !!h));
  const inFlight = (r: RecordRow) => r.status === 'pending' || r.status === 'submitted';
  const notConfirmed = records.filter((r) => r.status !== 'confirmed');

  // The partner's side.
  const sends = transfers.flatMap((t) => t.sends);
  const finals = sends.filter((s) => s.final !== null).map((s) => s.final!);
  const disagreeing = transfers.filter((t) => new Set(t.sends.map((s) => s.final?.transactionId).filter(Boolean)).size > 1);
  const answeredWithoutRecord = finals.filter((f) => f.transactionId !== undefined && !recordIds.has(f.transactionId));
  const recordByKey = new Map(records.map((r) => [r.idempotency_key, r]));
  // What each retried send went through, next to the record its key ended with: a send cut by a
  // kill whose record holds the nonce after a gap points at the allocation the kill orphaned.
  const retriedSends = transfers.flatMap((t) =>
    t.sends
      .filter((s) => s.attempts.length > 1)
      .map((s) => ({
        transfer: t.index,
        from: t.from,
        duplicate: s.duplicate,
        attempts: s.attempts.map((a) => `${a.slot} ${[a.status, a.error].filter((x) => x !== undefined).join(' ')} ${a.ms} ms`),
        recordNonce: recordByKey.get(t.key)?.nonce ?? null,
        recordStatus: recordByKey.get(t.key)?.status ?? null,
      })),
  );
  const retryErrors = countBy(
    sends.flatMap((s) => s.attempts.filter((a) => a.error !== undefined)),
    (a) => `${a.status ?? 'no answer'} ${a.error}`,
  );

  // Nonces, per wallet.
  const [nonces, pool, allocator] = await Promise.all([chainNonces(rpc, wallets.map((w) => w.address)), poolState(rpc), allocatorState(query)]);
  const findings: WalletFinding[] = wallets.map((w) => {
    const own = records.filter((r) => r.wallet_id === w.id);
    const held = new Set(own.map((r) => r.nonce).filter((n): n is number => n !== null));
    const highest = held.size > 0 ? Math.max(...held) : null;
    const missing: number[] = [];
    for (let n = 0; highest !== null && n < highest; n++) if (!held.has(n)) missing.push(n);
    const unresolved = own.filter(inFlight).map((r) => r.nonce).filter((n): n is number => n !== null).sort((a, b) => a - b);
    const chain = nonces.get(w.address.toLowerCase())!;
    return {
      wallet: w.id,
      address: w.address,
      records: own.length,
      highestRecordNonce: highest,
      missingNonces: missing,
      unresolved: spanOf(unresolved),
      chainLatestNonce: chain.latest,
      chainPendingNonce: chain.pending,
      queued: spanOf(pool.queuedNonces.get(w.address.toLowerCase()) ?? []),
      stranded: unresolved.length > 0 && chain.latest < unresolved[0]!,
      allocatorNextNonce: allocator.readable ? (allocator.next.get(w.id) ?? 0) : null,
      releasedNonces: allocator.released.get(w.id) ?? [],
    };
  });
  const withGaps = findings.filter((f) => f.missingNonces.length > 0);
  const gapSenders = new Set(withGaps.map((f) => f.address.toLowerCase()));
  const stranded = findings.filter((f) => f.stranded);

  // Payments on chain: each transfer's (recipient, value) pair, counted over every block since the traffic began.
  const senders = new Set(wallets.map((w) => w.address.toLowerCase()));
  const { transactions: mined, toBlock } = await minedTransactionsFrom(rpc, input.fromBlock, senders);
  const pairKey = (to: string | null, value: bigint) => `${to}:${value}`;
  const executions = new Map<string, number>();
  for (const tx of mined) executions.set(pairKey(tx.to, tx.value), (executions.get(pairKey(tx.to, tx.value)) ?? 0) + 1);
  const plannedKeys = new Set(transfers.map((t) => pairKey(t.to, t.value)));
  const executedTwice = [...executions].filter(([, count]) => count > 1).map(([payment, count]) => ({ payment, count }));
  const executedOnce = transfers.filter((t) => executions.get(pairKey(t.to, t.value)) === 1).length;
  const minedWithoutRecord = mined.filter((tx) => !recordHashes.has(tx.hash));

  // Webhooks: the events of the subscribed types against the distinct webhook-ids that arrived.
  const events = await query<{ id: string; type: string }>('SELECT id, type FROM events WHERE project_id = $1 AND type = ANY($2)', [input.projectId, input.subscribedTypes]);
  const delivered = events.filter((e) => input.arrivals.has(e.id)).length;
  const arrivalsTotal = [...input.arrivals.values()].reduce((a, b) => a + b, 0);
  const eventIds = new Set(events.map((e) => e.id));

  const unanswered = sends.filter((s) => s.final === null).length;
  const restarts = input.kills.map((k) => k.restartSeconds);
  const result = {
    at: new Date().toISOString(),
    parameters: input.parameters,
    seconds: input.seconds,
    transfersSent: transfers.length,
    duplicateSends: sends.filter((s) => s.duplicate).length,
    attempts: sends.reduce((a, s) => a + s.attempts.length, 0),
    sendsRetried: sends.filter((s) => s.attempts.length > 1).length,
    finalAnswers: countBy(finals, (f) => `${f.status}${f.code ? ` ${f.code}` : ''}`),
    sendsWithoutFinalAnswer: unanswered,
    retriedBecause: retryErrors,
    duplicateAnswersDisagreeing: disagreeing.length,
    answersNamingNoRecord: answeredWithoutRecord.length,
    kills: input.kills.length,
    killsCuttingRequests: input.kills.filter((k) => k.requestsInFlight > 0).length,
    requestsCut: input.kills.reduce((a, k) => a + k.requestsInFlight, 0),
    restartSeconds: restarts.length ? { mean: +(restarts.reduce((a, b) => a + b, 0) / restarts.length).toFixed(1), max: +Math.max(...restarts).toFixed(1) } : null,
    unexpectedExits: input.services.unexpectedExits,
    failedStarts: input.services.failedStarts,
    records: records.length,
    recordsByStatus: countBy(records, (r) => r.status),
    confirmed: records.filter((r) => r.status === 'confirmed').length,
    unresolvedAfterQuiet: notConfirmed.length,
    unresolvedByStatus: countBy(notConfirmed, (r) => `${r.status}${r.failure_code ? ` ${r.failure_code}` : ''}`),
    transfersWithoutRecord: transfers.filter((t) => !recordKeys.has(t.key)).length,
    signatures: events.filter((e) => e.type === 'transaction.signed').length,
    gapsFound: withGaps.reduce((a, f) => a + f.missingNonces.length, 0),
    walletsWithGaps: withGaps.length,
    strandedWallets: stranded.length,
    pool: { pending: pool.pending, queued: pool.queued },
    paymentsExecutedOnce: executedOnce,
    paymentsNotExecuted: transfers.filter((t) => !executions.has(pairKey(t.to, t.value))).length,
    duplicatesSent: executedTwice.length,
    duplicatePayments: executedTwice.slice(0, 20),
    minedTransactions: mined.length,
    minedNotPlanned: mined.filter((tx) => !plannedKeys.has(pairKey(tx.to, tx.value))).length,
    minedWithoutRecord: minedWithoutRecord.length,
    blocksScanned: { from: input.fromBlock, to: toBlock },
    webhookEvents: events.length,
    webhooksDelivered: delivered,
    webhooksMissing: events.length - delivered,
    webhookRepeats: arrivalsTotal - input.arrivals.size,
    webhookIdsNotEvents: [...input.arrivals.keys()].filter((id) => !eventIds.has(id)).length,
    serviceErrorLines: Object.fromEntries([...input.services.errorLines].sort((a, b) => b[1] - a[1]).slice(0, 12)),
    // Those of wallets with gaps first: among them is the send whose killed run took the missing nonce.
    retriedSends: [...retriedSends.filter((s) => gapSenders.has(s.from)), ...retriedSends.filter((s) => !gapSenders.has(s.from))].slice(0, 40),
    walletFindings: findings.filter((f) => f.missingNonces.length > 0 || f.stranded || f.unresolved.count > 0).slice(0, 40),
    logDir: input.logDir,
  };
  const failures = [
    ...(result.unresolvedAfterQuiet > 0 ? [`${result.unresolvedAfterQuiet} record(s) not confirmed after the quiet period`] : []),
    ...(result.gapsFound > 0 ? [`${result.gapsFound} nonce gap(s) in ${result.walletsWithGaps} wallet(s)`] : []),
    ...(result.strandedWallets > 0 ? [`${result.strandedWallets} stranded wallet(s)`] : []),
    ...(result.duplicatesSent > 0 ? [`${result.duplicatesSent} payment(s) executed more than once`] : []),
    ...(unanswered > 0 ? [`${unanswered} send(s) without a final answer`] : []),
  ];
  return { ...result, failures, ok: failures.length === 0 };
}

export type SoakReport = Awaited<ReturnType<typeof buildReport>>;

const json = (value: unknown) => JSON.stringify(value);
const TABLE_SENDS = 20;

export function formatReport(r: SoakReport): string {
  const rows: [string, string | number, string?][] = [
    ['transfers sent', r.transfersSent, `+ ${r.duplicateSends} duplicate sends; ${r.attempts} attempts, ${r.sendsRetried} sends retried`],
    ['final answers', json(r.finalAnswers), r.sendsWithoutFinalAnswer ? `${r.sendsWithoutFinalAnswer} sends without one` : 'every send answered'],
    ['retried because', json(r.retriedBecause)],
    ['duplicate answers disagreeing', r.duplicateAnswersDisagreeing, 'two transactionIds for one Idempotency-Key'],
    ['kills (SIGKILL)', r.kills, `${r.killsCuttingRequests} cut ${r.requestsCut} request(s) in flight${r.restartSeconds ? `; restart ${r.restartSeconds.mean} s mean, ${r.restartSeconds.max} s max` : ''}`],
    ['unexpected exits / failed starts', `${r.unexpectedExits.length} / ${r.failedStarts}`],
    ['records', r.records, json(r.recordsByStatus)],
    ['confirmed', r.confirmed],
    ['unresolved after quiet', r.unresolvedAfterQuiet, r.unresolvedAfterQuiet ? json(r.unresolvedByStatus) : ''],
    ['transfers without a record', r.transfersWithoutRecord, `${r.answersNamingNoRecord} answers name a transactionId with no record`],
    ['signatures (transaction.signed)', r.signatures, `${r.signatures - r.records} signed but never recorded`],
    ['gaps found', r.gapsFound, `${r.walletsWithGaps} wallet(s) with gaps, ${r.strandedWallets} stranded`],
    ['chain pool', `${r.pool.pending} pending, ${r.pool.queued} queued`, 'queued: waiting behind a missing nonce'],
    ['duplicates sent', r.duplicatesSent, 'payments executed on chain more than once'],
    ['payments on chain', r.paymentsExecutedOnce, `${r.paymentsNotExecuted} not executed; ${r.minedWithoutRecord} mined without a record; blocks ${r.blocksScanned.from}-${r.blocksScanned.to}`],
    ['webhooks delivered / events', `${r.webhooksDelivered} / ${r.webhookEvents}`, `${r.webhooksMissing} missing, ${r.webhookRepeats} repeats`],
    ['run time', `${r.seconds.total} s`, `traffic ${r.seconds.traffic} s, quiet ${r.seconds.quiet} s`],
  ];
  const out = [`\nsoak — ${r.at}, ${json(r.parameters)}`, ''];
  for (const [label, value, note] of rows) out.push(`${label.padEnd(34)}${String(value).padStart(10)}   ${note ?? ''}`.trimEnd());
  if (r.walletFindings.length > 0) {
    out.push('', `${'wallet'.padEnd(44)}${'records'.padStart(8)}  ${'missing nonces'.padEnd(18)}${'unresolved nonces'.padEnd(22)}chain latest/pending  ${'queued in pool'.padEnd(22)}allocator next / released  stranded`);
    const list = (ns: number[]) => (ns.length > 6 ? `${ns.slice(0, 3).join(',')}…${ns.at(-1)} (${ns.length})` : ns.join(',') || '-');
    const span = (n: NonceSpan) => (n.count === 0 ? '-' : n.count === 1 ? String(n.lowest) : `${n.lowest}…${n.highest} (${n.count})`);
    for (const f of r.walletFindings) {
      out.push(
        `${f.address.padEnd(44)}${String(f.records).padStart(8)}  ${list(f.missingNonces).padEnd(18)}${span(f.unresolved).padEnd(22)}${`${f.chainLatestNonce}/${f.chainPendingNonce}`.padEnd(22)}` +
          `${span(f.queued).padEnd(22)}${`${f.allocatorNextNonce ?? '?'} / ${list(f.releasedNonces)}`.padEnd(27)}${f.stranded ? 'STRANDED' : ''}`,
      );
    }
  }
  if (r.retriedSends.length > 0) {
    out.push('', `${'retried send'.padEnd(14)}${'from'.padEnd(44)}${'record nonce'.padEnd(14)}attempts (process, answer or error, duration)`);
    for (const s of r.retriedSends.slice(0, TABLE_SENDS)) {
      out.push(`${`#${s.transfer}${s.duplicate ? ' (dup)' : ''}`.padEnd(14)}${s.from.padEnd(44)}${`${s.recordNonce ?? '-'} ${s.recordStatus ?? ''}`.padEnd(14)}${s.attempts.join(' → ')}`);
    }
    if (r.sendsRetried > TABLE_SENDS) out.push(`… ${r.sendsRetried - TABLE_SENDS} more retried sends (up to 40 in the JSON line)`);
  }
  const errors = Object.entries(r.serviceErrorLines);
  if (errors.length > 0) {
    out.push('', 'service error log lines (count, message):');
    for (const [message, count] of errors) out.push(`${String(count).padStart(6)}  ${message}`);
  }
  out.push('', `service logs: ${r.logDir}`, r.ok ? 'PASS' : `FAIL: ${r.failures.join('; ')}`);
  return out.join('\n');
}
