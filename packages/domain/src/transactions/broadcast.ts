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

/**
 * Records and sends a signed transaction. The record (status `pending`) is written before the node
 * sees the transaction, so a crash between the two leaves a record the monitor still resolves. The
 * node's refusal or a lost answer leaves the record `failed` at stage `broadcast` and answers with
 * its id; acceptance makes it `submitted`.
 */
export function createBroadcaster({ store, clock, isDevnet }: BroadcastDeps) {
  return async function broadcast({ caller, wallet, intentKind, target, signedTransaction, hash, fields, allocatedNonce }: Broadcast): Promise<BroadcastResult> {
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
        submittedAt: null,
        nextCheckAt: new Date(now.getTime() + FIRST_CHECK_DELAY_MS),
        ...fields,
      },
      [],
    );
    const devnet = isDevnet(record);
    const headers = { 'x-transaction-id': record.id };
    try {
      if (target.type === 'EVM') await target.gateway.sendRawTransaction(signedTransaction as Hex);
      else await target.gateway.sendTransaction(signedTransaction);
    } catch (error) {
      const accepted = error instanceof BroadcastRejectedError && error.code === 'ALREADY_PROCESSED';
      if (!accepted) {
        const rejected = error instanceof BroadcastRejectedError;
        if (!rejected && !(error instanceof ChainUnavailableError)) throw error;
        const failureCode = rejected ? error.code : 'RPC_UNAVAILABLE';
        const failureMessage = (error as Error).message.slice(0, 500);
        const at = clock.now();
        const failed = { ...record, status: 'failed' as const, failureStage: 'broadcast' as const, failureCode, failureMessage, resolvedAt: at, nextCheckAt: null };
        await store.update(record.id, failed, resolvedEvents(failed, devnet, at), 'pending');
        // A refused transaction never used its nonce: hand it out again. A lost answer may have.
        if (rejected && allocatedNonce && fields.nonce !== null && failureCode !== 'NONCE_TOO_LOW') {
          await store.releaseNonce(wallet.id, record.chainId!, fields.nonce);
        }
        throw new ApiError(
          rejected ? 400 : 502,
          'BROADCAST_FAILED',
          rejected ? `The node refused the transaction: ${failureMessage}` : `The broadcast's outcome is unknown: ${failureMessage}`,
          { transactionId: record.id, failureStage: 'broadcast', failureCode },
        );
      }
    }
    const at = clock.now();
    const submitted = { ...record, status: 'submitted' as const, submittedAt: at };
    // Only while still pending: the monitor may already have seen it land (and resolved it).
    await store.update(record.id, { status: 'submitted', submittedAt: at }, broadcastedEvents(submitted, devnet, at), 'pending');
    return { body: { signedTransaction, txHash: hash, transactionId: record.id }, headers };
  };
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
