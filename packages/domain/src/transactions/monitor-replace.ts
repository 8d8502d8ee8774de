/**
 * The monitor's fee replacements (attempts.ts): for the leased records whose last attempt is stuck
 * under the base fee, signs (through the injected replacer), stores, then sends a replacement.
 */
import { randomUUID } from 'node:crypto';
import { keccak256, parseTransaction, type Hex } from 'viem';
import type { TransactionRecord } from '../ports.ts';
import type { Clock } from '../shared/clock.ts';
import { DEFAULT_AUTO_RETRY_AFTER_BLOCKS, DEFAULT_AUTO_RETRY_MAX_ATTEMPTS, nextAttemptFees, type AutoRetryOptions, type TransactionAttempt } from './attempts.ts';
import { broadcastedEvents } from './events.ts';
import { BroadcastRejectedError, type EvmFeeSuggestion, type EvmGateway } from './gateways.ts';
import { errorText, type Calls } from './monitor-evidence.ts';

/**
 * Sends a stored attempt; when the node takes it (or already had it), marks it sent with its own
 * `send.broadcasted`. Unreachable or refused: false, and the stored attempt is sent again by the
 * next check's rebroadcast.
 */
export async function sendStoredAttempt(
  options: Pick<AutoRetryOptions, 'attempts'> & { clock: Clock; isDevnet: (record: TransactionRecord) => boolean },
  record: TransactionRecord,
  attempt: Pick<TransactionAttempt, 'hash'>,
  send: () => Promise<unknown>,
): Promise<boolean> {
  try {
    await send();
  } catch (error) {
    if (!(error instanceof BroadcastRejectedError && error.code === 'ALREADY_PROCESSED')) return false;
  }
  const at = options.clock.now();
  await options.attempts.markSent(record.id, attempt.hash, at, broadcastedEvents({ ...record, hash: attempt.hash }, options.isDevnet(record), at));
  return true;
}

/** A leased record that waits without a receipt for any attempt, with its stored replacements. */
export interface ReplacementCandidate {
  record: TransactionRecord;
  attempts: TransactionAttempt[];
}

/** The fees, call and gas limit of the record's first attempt (its signed bytes). */
export function originalTransaction(record: TransactionRecord) {
  const tx = parseTransaction(record.signedTransaction as Hex);
  return {
    to: tx.to!,
    value: (tx.value ?? 0n).toString(),
    data: tx.data ?? null,
    gasLimit: (tx.gas ?? 0n).toString(),
    maxFeePerGas: tx.maxFeePerGas ?? tx.gasPrice ?? 0n,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? tx.gasPrice ?? 0n,
  };
}

/** The block a record's first attempt waits from (see `MonitoringInfo.retryFrom`). */
export const retryFromOf = (record: TransactionRecord): bigint | null => (record.monitoring?.retryFrom ? BigInt(record.monitoring.retryFrom) : null);

/**
 * Replaces the candidates due for it on one chain, priced from `fees` (the suggestion the run read
 * with the chain's heads); without it, the suggestion is read once, only when some candidate has
 * waited long enough. Answers how many replacements were sent.
 */
export async function replaceStalled(
  options: AutoRetryOptions & { owner: string; clock: Clock; isDevnet: (record: TransactionRecord) => boolean },
  gateway: EvmGateway,
  candidates: ReplacementCandidate[],
  latest: bigint,
  calls: Calls,
  fees?: EvmFeeSuggestion,
): Promise<number> {
  const afterBlocks = BigInt(options.afterBlocks ?? DEFAULT_AUTO_RETRY_AFTER_BLOCKS);
  const maxAttempts = options.maxAttempts ?? DEFAULT_AUTO_RETRY_MAX_ATTEMPTS;
  const due = candidates.filter(({ record, attempts }) => {
    const since = attempts.at(-1)?.sentBlock ?? retryFromOf(record);
    return since !== null && latest - since >= afterBlocks;
  });
  if (due.length === 0) return 0;
  const suggestion = fees ?? (await calls.run(gateway.getFeeSuggestion()));
  const reasons: { recordId: string; reason: string }[] = [];
  const reason = (record: TransactionRecord, text: string) => {
    if (record.autoRetryReason !== text) reasons.push({ recordId: record.id, reason: text.slice(0, 500) });
  };
  let sent = 0;
  await Promise.all(
    due.map(async ({ record, attempts }) => {
      const original = originalTransaction(record);
      const last = attempts.at(-1);
      const lastFees = last
        ? { maxFeePerGas: BigInt(last.maxFeePerGas!), maxPriorityFeePerGas: BigInt(last.maxPriorityFeePerGas!) }
        : { maxFeePerGas: original.maxFeePerGas, maxPriorityFeePerGas: original.maxPriorityFeePerGas };
      // Priced at or above the base fee: it only waits for room in a block.
      if (lastFees.maxFeePerGas >= suggestion.baseFeePerGas) return;
      const number = attempts.length + 2;
      if (number > maxAttempts) return reason(record, `at most ${maxAttempts} attempts: no further replacement; the last one waits for the base fee to fall`);
      const next = nextAttemptFees(lastFees, suggestion, BigInt(record.autoRetryMaxFeePerGas!));
      if ('reason' in next) return reason(record, next.reason);
      const attemptOf = (signed: string): TransactionAttempt => ({
        id: randomUUID(),
        recordId: record.id,
        number,
        hash: keccak256(signed as Hex),
        signedTransaction: signed,
        maxFeePerGas: next.fees.maxFeePerGas.toString(),
        maxPriorityFeePerGas: next.fees.maxPriorityFeePerGas.toString(),
        recentBlockhash: null,
        lastValidBlockHeight: null,
        sentBlock: latest,
        sentAt: options.clock.now(),
        outcome: 'unknown',
        reason: `fee replacement ${number}: attempt ${number - 1} offered maxFeePerGas ${lastFees.maxFeePerGas}, below the base fee ${suggestion.baseFeePerGas}, for ${afterBlocks} blocks`,
      });
      const held: { attempt?: TransactionAttempt } = {};
      try {
        // Stored before it is sent, in its signature's own commit: a crash now leaves bytes the next
        // check sends (never a second plan), or neither the attempt nor its audit row.
        const transaction = {
          to: original.to,
          value: original.value,
          data: original.data,
          nonce: record.nonce!,
          gasLimit: original.gasLimit,
          maxFeePerGas: next.fees.maxFeePerGas.toString(),
          maxPriorityFeePerGas: next.fees.maxPriorityFeePerGas.toString(),
        };
        const signed = await options.replacer.sign(record, transaction, (bytes, signature) => options.attempts.add(options.owner, (held.attempt = attemptOf(bytes)), signature));
        if (signed === null) return;
      } catch (error) {
        // A failed store fails the monitor run, as a failed write does; a refused signature is the record's reason.
        if (held.attempt) throw error;
        const code = (error as { code?: string }).code;
        return reason(record, `replacement not signed${code ? ` (${code})` : ''}: ${errorText(error)}`);
      }
      const attempt = held.attempt!;
      options.crashAt?.('replacement-stored');
      if (await sendStoredAttempt(options, record, attempt, () => calls.run(gateway.sendRawTransaction(attempt.signedTransaction as Hex)))) sent++;
    }),
  );
  if (reasons.length > 0) await options.attempts.setReasons(options.owner, reasons);
  return sent;
}
