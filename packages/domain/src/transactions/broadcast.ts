import { getBase58Decoder, getTransactionDecoder, type Address } from '@solana/kit';
import { randomUUID } from 'node:crypto';
import type { Hex } from 'viem';
import { ApiError } from '../errors.ts';
import type { IntentKind, TransactionRecord, TransactionStore, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import type { BroadcastResult, ChainTarget, RecordFields } from './context.ts';
import { broadcastedEvents, resolvedEvents } from './events.ts';
import { BroadcastRejectedError, ChainUnavailableError } from './gateways.ts';

/** When the monitor first looks at a new record. */
export const FIRST_CHECK_DELAY_MS = 1_000;

export interface BroadcastDeps {
  store: TransactionStore;
  clock: Clock;
  isDevnet: (record: Pick<TransactionRecord, 'walletType' | 'chainId' | 'network'>) => boolean;
}

/** One signed transaction to record and send. */
export interface Broadcast {
  caller: Caller;
  wallet: WalletRecord;
  intentKind: IntentKind;
  target: ChainTarget;
  signedTransaction: string;
  hash: string;
  fields: RecordFields;
  /** The nonce was handed out by the store for this transaction (given back if the node refuses it). */
  allocatedNonce: boolean;
}

/** The error answering a broadcast the node refused (400) or whose outcome is unknown (502). */
function broadcastFailed(record: Pick<TransactionRecord, 'id' | 'failureCode' | 'failureMessage'>): ApiError {
  const unknown = record.failureCode === 'RPC_UNAVAILABLE';
  return new ApiError(
    unknown ? 502 : 400,
    'BROADCAST_FAILED',
    unknown ? `The broadcast's outcome is unknown: ${record.failureMessage}` : `The node refused the transaction: ${record.failureMessage}`,
    { transactionId: record.id, failureStage: 'broadcast', failureCode: record.failureCode },
  );
}

/**
 * Records and sends a signed transaction. The record (status `pending`, with the signed bytes and
 * the request's Idempotency-Key) is written before the node sees the transaction, so a crash
 * between the two leaves a record the monitor still resolves and a retry of the request finds
 * (`replay`). The node's refusal or a lost answer leaves the record `failed` at stage `broadcast`
 * and answers with its id; acceptance makes it `submitted`.
 */
export function createBroadcaster({ store, clock, isDevnet }: BroadcastDeps) {
  async function send(record: TransactionRecord, target: ChainTarget, signedTransaction: string, nonceToRelease: number | null, resend: boolean): Promise<BroadcastResult> {
    const devnet = isDevnet(record);
    const headers = { 'x-transaction-id': record.id };
    try {
      if (target.type === 'EVM') await target.gateway.sendRawTransaction(signedTransaction as Hex);
      else await target.gateway.sendTransaction(signedTransaction);
    } catch (error) {
      // A re-send may find its transaction already known or even mined (its nonce then reads as
      // used): the record stays for the monitor, which resolves it by its hash.
      const accepted =
        error instanceof BroadcastRejectedError && (error.code === 'ALREADY_PROCESSED' || (resend && error.code === 'NONCE_TOO_LOW'));
      if (!accepted) {
        const rejected = error instanceof BroadcastRejectedError;
        if (!rejected && !(error instanceof ChainUnavailableError)) throw error;
        const failureCode = rejected ? error.code : 'RPC_UNAVAILABLE';
        const failureMessage = (error as Error).message.slice(0, 500);
        const at = clock.now();
        const failed = { ...record, status: 'failed' as const, failureStage: 'broadcast' as const, failureCode, failureMessage, resolvedAt: at, nextCheckAt: null };
        await store.update(record.id, failed, resolvedEvents(failed, devnet, at), 'pending');
        // A refused transaction never used its nonce: hand it out again. A lost answer may have.
        if (rejected && nonceToRelease !== null && failureCode !== 'NONCE_TOO_LOW') {
          await store.releaseNonce(record.walletId, record.chainId!, nonceToRelease);
        }
        throw broadcastFailed(failed);
      }
    }
    const at = clock.now();
    const submitted = { ...record, status: 'submitted' as const, submittedAt: at };
    // Only while still pending: the monitor may already have seen it land (and resolved it).
    await store.update(record.id, { status: 'submitted', submittedAt: at }, broadcastedEvents(submitted, devnet, at), 'pending');
    return { body: { signedTransaction, txHash: record.hash!, transactionId: record.id }, headers };
  }

  async function broadcast({ caller, wallet, intentKind, target, signedTransaction, hash, fields, allocatedNonce }: Broadcast): Promise<BroadcastResult> {
    const now = clock.now();
    const record = await store.create(
      {
        id: randomUUID(),
        projectId: caller.projectId,
        partnerId: caller.partnerId,
        walletId: wallet.id,
        walletType: target.type,
        intentKind,
        status: 'pending',
        chainId: target.type === 'EVM' ? target.chainId : null,
        network: target.type === 'SOLANA' ? target.network : null,
        fromAddress: wallet.address,
        hash,
        failureStage: null,
        failureCode: null,
        failureMessage: null,
        monitoring: null,
        requestId: caller.requestId,
        apiKeyId: caller.apiKeyId,
        idempotencyKey: caller.idempotencyKey ?? null,
        signedTransaction,
        submittedAt: null,
        nextCheckAt: new Date(now.getTime() + FIRST_CHECK_DELAY_MS),
        ...fields,
      },
      [],
    );
    return send(record, target, signedTransaction, allocatedNonce ? fields.nonce : null, false);
  }

  /**
   * The answer to a retried request (same Idempotency-Key) whose first run broadcast `record` but
   * died before its response was stored: never a second signature or transaction. A record still
   * `pending` was perhaps never sent, so its stored bytes are sent (again); a failed broadcast
   * answers its stored error; anything else answers as the first run would have.
   */
  async function replay(record: TransactionRecord, target: ChainTarget): Promise<BroadcastResult> {
    if (record.status === 'failed' && record.failureStage === 'broadcast') throw broadcastFailed(record);
    if (record.status === 'pending' && record.signedTransaction) return send(record, target, record.signedTransaction, null, true);
    return {
      body: { signedTransaction: record.signedTransaction ?? '', txHash: record.hash!, transactionId: record.id },
      headers: { 'x-transaction-id': record.id },
    };
  }

  return Object.assign(broadcast, { replay });
}

export type Broadcaster = ReturnType<typeof createBroadcaster>;

/** The wallet's signature in a signed Solana wire transaction: the transaction id (base58). */
export function solanaSignature(wireBase64: string, address: string): string {
  const decoded = getTransactionDecoder().decode(Buffer.from(wireBase64, 'base64'));
  const signature = decoded.signatures[address as Address];
  if (!signature) throw new Error('signed transaction lacks the wallet signature');
  return getBase58Decoder().decode(signature);
}

/** Record fields of a broadcast that carries no transfer details. */
export const NO_RECORD_FIELDS: RecordFields = {
  to: null,
  value: null,
  tokenAddress: null,
  nonce: null,
  recentBlockhash: null,
  lastValidBlockHeight: null,
  nonceAccount: null,
  cancellationOf: null,
};
