/**
 * The monitor's Solana rebuilds (attempts.ts): a managed Solana `transfer` record whose last attempt
 * is proven expired gets the same transfer built on a fresh blockhash, signed (through the injected
 * rebuilder, i.e. the signing pipeline), stored, then sent, instead of failing TRANSACTION_EXPIRED.
 *
 * Why a payment never lands twice: the next attempt is made only when every earlier one can no
 * longer land. The proof (monitor-evidence.ts `checkSolana`) is the chain's finalized block height
 * above the LAST attempt's lastValidBlockHeight, then the statuses of ALL the record's signatures,
 * read after that proof, showing none landed. Every earlier attempt was built on an older blockhash
 * (each rebuild fetches its blockhash after the previous attempt's expiry was proven), so its last
 * valid height is lower still: expired too. A transaction past its last valid height is refused by
 * every validator forever, so of all the attempts at most the newest can ever execute.
 */
import { randomUUID } from 'node:crypto';
import type { TransactionRecord } from '../ports.ts';
import type { Clock } from '../shared/clock.ts';
import { DEFAULT_AUTO_RETRY_MAX_ATTEMPTS, type AutoRetryOptions, type TransactionAttempt } from './attempts.ts';
import { ChainUnavailableError, type SolanaGateway } from './gateways.ts';
import { errorText, type Calls } from './monitor-evidence.ts';
import { sendStoredAttempt } from './monitor-replace.ts';
import type { Verdict } from './monitor-rules.ts';

/** A verdict proving the record's last attempt expired without any attempt landing. */
const provenExpired = (verdict: Verdict | undefined): verdict is Extract<Verdict, { kind: 'resolve' }> =>
  verdict?.kind === 'resolve' && !verdict.resolution.landed && verdict.resolution.monitoring.chainOutcome === 'expired';

/** Records rebuilt instead of failing: service-built transfers with managed retry, waiting on a blockhash (not a durable nonce). */
const rebuildable = (r: TransactionRecord) =>
  r.autoRetry === true && r.intentKind === 'transfer' && r.status === 'submitted' && r.nonceAccount === null && r.lastValidBlockHeight !== null && r.signedTransaction !== null;

/**
 * Rebuilds the proven-expired managed records of one network (`finalizedHeight`: the proof's
 * reading). A rebuilt record's verdict becomes a wait; one that cannot be rebuilt (attempts used
 * up, the pipeline refused) still fails TRANSACTION_EXPIRED, its message and `autoRetry.reason`
 * saying why. Answers how many rebuilds were sent.
 */
export async function rebuildExpired(
  options: AutoRetryOptions & { owner: string; clock: Clock; isDevnet: (record: TransactionRecord) => boolean },
  gateway: SolanaGateway,
  records: TransactionRecord[],
  verdicts: Map<string, Verdict>,
  attemptsOf: Map<string, TransactionAttempt[]>,
  finalizedHeight: bigint | null,
  calls: Calls,
): Promise<number> {
  const rebuilder = options.rebuilder;
  const due = records.filter((r) => rebuildable(r) && provenExpired(verdicts.get(r.id)));
  if (!rebuilder || due.length === 0 || finalizedHeight === null) return 0;
  const maxAttempts = options.maxAttempts ?? DEFAULT_AUTO_RETRY_MAX_ATTEMPTS;
  const reasons: { recordId: string; reason: string }[] = [];
  /** The record fails TRANSACTION_EXPIRED as without managed retry; its message and reason say why no rebuild follows. */
  const fail = (record: TransactionRecord, why: string) => {
    const verdict = verdicts.get(record.id) as Extract<Verdict, { kind: 'resolve' }>;
    verdict.resolution.failureMessage = `${verdict.resolution.failureMessage}: ${why}`.slice(0, 500);
    reasons.push({ recordId: record.id, reason: why.slice(0, 500) });
  };
  const fresh: TransactionRecord[] = [];
  for (const record of due) {
    if ((attemptsOf.get(record.id)?.length ?? 0) + 1 >= maxAttempts) fail(record, `all ${maxAttempts} attempts expired without landing; no further rebuild`);
    else fresh.push(record);
  }
  let latest: { blockhash: string; lastValidBlockHeight: bigint } | null = null;
  if (fresh.length > 0) {
    try {
      latest = await calls.run(gateway.getLatestBlockhash());
    } catch (error) {
      // Nothing is lost by waiting: every attempt is expired, none can land; the next check tries again.
      for (const r of fresh) verdicts.set(r.id, { kind: 'error', message: errorText(error) });
    }
  }
  let sent = 0;
  await Promise.all(
    (latest ? fresh : []).map(async (record) => {
      const attempts = attemptsOf.get(record.id) ?? [];
      const number = attempts.length + 2;
      const expiredAt = attempts.at(-1)?.lastValidBlockHeight ?? record.lastValidBlockHeight!;
      const attemptOf = (built: { signedTransaction: string; signature: string }): TransactionAttempt => ({
        id: randomUUID(),
        recordId: record.id,
        number,
        hash: built.signature,
        signedTransaction: built.signedTransaction,
        maxFeePerGas: null,
        maxPriorityFeePerGas: null,
        recentBlockhash: latest!.blockhash,
        lastValidBlockHeight: latest!.lastValidBlockHeight,
        sentBlock: finalizedHeight,
        sentAt: options.clock.now(),
        outcome: 'unknown',
        reason: `rebuild ${number}: attempt ${number - 1} expired without landing (finalized block height ${finalizedHeight} > its last valid block height ${expiredAt})`,
      });
      const held: { attempt?: TransactionAttempt } = {};
      try {
        // Stored before it is sent, in its signature's own commit: a crash now leaves bytes the next
        // check sends while they are still valid (the rebroadcast of the last attempt), never a second
        // rebuild of a live attempt. Not stored (another monitor holds the record now, or stored this
        // number first): that one decides.
        const signed = await rebuilder.sign(record, { recentBlockhash: latest!.blockhash }, (built, signature) => {
          verdicts.set(record.id, { kind: 'wait', evidence: false, expiredSince: null });
          return options.attempts.add(options.owner, (held.attempt = attemptOf(built)), signature);
        });
        if (signed === null) return;
      } catch (error) {
        if (held.attempt || error instanceof ChainUnavailableError) return verdicts.set(record.id, { kind: 'error', message: errorText(error) });
        const code = (error as { code?: string }).code;
        return fail(record, `rebuild not signed${code ? ` (${code})` : ''}: ${errorText(error)}`);
      }
      const attempt = held.attempt!;
      if (await sendStoredAttempt(options, record, attempt, () => calls.run(gateway.sendTransaction(attempt.signedTransaction)))) sent++;
    }),
  );
  if (reasons.length > 0) await options.attempts.setReasons(options.owner, reasons);
  return sent;
}
