/**
 * Relayer submission: the service's relayer key sends `EntryPoint.handleOps([op])` for the stored
 * operation. Its nonce comes from the shared allocator (under an id derived from the relayer's
 * address), and the signed transaction is stored, taking that nonce, before the node sees it
 * (stage `submission_unknown`); the node's acceptance makes the stage `submitted`. A resubmission
 * sends the stored transaction again, byte for byte; only when the node can no longer take it (its
 * nonce was used) is a new relayer transaction signed around the same stored operation.
 */
import { createHash } from 'node:crypto';
import { keccak256, type Hex } from 'viem';
import type { TransactionRecord } from '../ports.ts';
import { exponentialBackoffMs } from '../shared/backoff.ts';
import { BroadcastRejectedError, ChainUnavailableError } from '../transactions/gateways.ts';
import { OperationRejectedError } from './operation-chain.ts';
import { sponsoredContext, withAttempt, withContext, type SubmissionAttempt } from './operation-context.ts';
import type { SaveStep, SponsoredChainAccess, SponsoredWorkerDeps } from './worker-deps.ts';

/** How long the relayer's reserved nonce waits for the record that takes it. */
const RELAYER_NONCE_RESERVATION_MS = 20_000;
/** The first look for the operation's event after a submission. */
export const FIRST_LOOK_MS = 1_000;

/** The nonce allocator's id of a relayer address on a chain (a UUID; the allocator keys nonces by wallet id). */
export function relayerAllocatorId(chainId: number, relayer: string): string {
  const h = createHash('sha256').update(`relayer:${chainId}:${relayer.toLowerCase()}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h.slice(16, 17), 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export type SubmitOutcome = { kind: 'submitted' | 'unknown' | 'retry-later'; record: TransactionRecord } | { kind: 'rejected'; error: OperationRejectedError } | { kind: 'lost' };

export function createRelayerSubmission(deps: SponsoredWorkerDeps, save: SaveStep) {
  const { transactions, serviceKeys, clock } = deps;
  const after = (ms: number) => new Date(clock.now().getTime() + ms);

  /** Sends the stored bytes; the stage follows the node's answer. */
  async function send(record: TransactionRecord, access: SponsoredChainAccess, reason: string): Promise<SubmitOutcome> {
    const context = sponsoredContext(record);
    // The stored relayer transaction is one attempt however often its bytes are sent.
    const attempt = (outcome: SubmissionAttempt['outcome']) => ({
      attempts: withAttempt(context.attempts, { hash: keccak256(record.signedTransaction as Hex), sentAt: clock.now().toISOString(), outcome }),
      reason,
    });
    try {
      await access.gateway.sendRawTransaction(record.signedTransaction as Hex);
    } catch (error) {
      if (error instanceof ChainUnavailableError) {
        const saved = await save(record, { stage: 'submission_unknown', status: 'submitted', nextCheckAt: after(FIRST_LOOK_MS), monitoring: withContext(record, attempt('unknown')) });
        return saved ? { kind: 'unknown', record: saved } : { kind: 'lost' };
      }
      if (error instanceof BroadcastRejectedError && error.code === 'ALREADY_PROCESSED') {
        // Known to the node already: as accepted.
      } else if (error instanceof BroadcastRejectedError) {
        // The node refuses this relayer transaction (its nonce used elsewhere, fees, the relayer's funds):
        // nothing was submitted; a new relayer transaction carries the same stored operation next time.
        const nonceUsed = error.code === 'NONCE_TOO_LOW';
        if (!nonceUsed && context.relayerNonce !== undefined) {
          const relayer = (await serviceKeys.ensureServiceKey('relayer', access.config.chainId)).address;
          await transactions.releaseNonce(relayerAllocatorId(access.config.chainId, relayer), String(access.config.chainId), context.relayerNonce);
        }
        const errors = record.consecutiveErrors + 1;
        const saved = await save(record, {
          stage: 'signed',
          status: 'pending',
          nextCheckAt: after(nonceUsed ? 0 : exponentialBackoffMs(errors, FIRST_LOOK_MS, 30_000)),
          consecutiveErrors: nonceUsed ? record.consecutiveErrors : errors,
          monitoring: withContext(record, attempt('refused'), { lastError: `relayer transaction refused: ${error.message.slice(0, 200)}` }),
        });
        return saved ? { kind: 'retry-later', record: saved } : { kind: 'lost' };
      } else throw error;
    }
    deps.crashAt?.('sponsored-submitted');
    const saved = await save(record, {
      stage: 'submitted',
      status: 'submitted',
      submittedAt: record.submittedAt ?? clock.now(),
      nextCheckAt: after(FIRST_LOOK_MS),
      monitoring: withContext(record, attempt('pending'), { lastError: null }),
      consecutiveErrors: 0,
    });
    return saved ? { kind: 'submitted', record: saved } : { kind: 'lost' };
  }

  return {
    send,

    /** Signs a relayer transaction for the stored operation, stores it (taking its nonce), then sends it. */
    async submit(record: TransactionRecord, access: SponsoredChainAccess, reason: string): Promise<SubmitOutcome> {
      const chainId = access.config.chainId;
      const relayer = (await serviceKeys.ensureServiceKey('relayer', chainId)).address as Hex;
      const allocatorId = relayerAllocatorId(chainId, relayer);
      const [fees, pending] = await Promise.all([access.gateway.getFeeSuggestion(), access.gateway.getPendingNonce(relayer)]);
      const reservation = await transactions.allocateNonce(allocatorId, String(chainId), pending, RELAYER_NONCE_RESERVATION_MS);
      let signed: Hex;
      try {
        const maxPriorityFeePerGas = fees.maxPriorityFeePerGas > fees.maxFeePerGas ? fees.maxFeePerGas : fees.maxPriorityFeePerGas;
        const tx = await access.chain.relayerTransaction(record.userOperation!, relayer, { nonce: reservation.nonce, maxFeePerGas: fees.maxFeePerGas, maxPriorityFeePerGas });
        signed = await serviceKeys.signRelayerTransaction(chainId, tx);
      } catch (error) {
        await transactions.releaseNonce(allocatorId, String(chainId), reservation.nonce, reservation.reservationId);
        if (error instanceof OperationRejectedError) return { kind: 'rejected', error };
        throw error;
      }
      const stored = await save(
        record,
        {
          stage: 'submission_unknown',
          status: 'submitted',
          signedTransaction: signed,
          // The record's hash is its first relayer transaction's, whichever attempt is included.
          hash: record.hash ?? keccak256(signed),
          monitoring: withContext(record, {
            relayerNonce: reservation.nonce,
            attempts: withAttempt(sponsoredContext(record).attempts, {
              hash: keccak256(signed),
              userOperationHash: record.userOperationHash!,
              maxFeePerGas: fees.maxFeePerGas.toString(),
              maxPriorityFeePerGas: (fees.maxPriorityFeePerGas > fees.maxFeePerGas ? fees.maxFeePerGas : fees.maxPriorityFeePerGas).toString(),
              sentAt: clock.now().toISOString(),
              outcome: 'unknown',
            }),
          }),
        },
        [],
        { keepLease: true, nonce: { allocatorId, chainId: String(chainId), nonce: reservation.nonce, reservationId: reservation.reservationId } },
      );
      if (!stored) {
        await transactions.releaseNonce(allocatorId, String(chainId), reservation.nonce, reservation.reservationId);
        return { kind: 'lost' };
      }
      return send(stored, access, reason);
    },
  };
}
