import { getBase58Decoder, getTransactionDecoder, type Address } from '@solana/kit';
import { randomUUID } from 'node:crypto';
import type { Hex } from 'viem';
import { ApiError } from '../errors.ts';
import { NonceReservationLostError, type IntentKind, type NonceReservation, type SignatureWrite, type TransactionRecord, type TransactionStore, type WalletRecord } from '../ports.ts';
import type { SigningIntent, SigningPipeline } from '../signing/pipeline.ts';
import type { CrashAt } from '../shared/crash-points.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import type { BroadcastResult, ChainTarget, RecordFields } from './context.ts';
import { broadcastedEvents, resolvedEvents } from './events.ts';
import { toTransactionDetail } from './history.ts';
import { BroadcastRejectedError, ChainUnavailableError } from './gateways.ts';

/** When the monitor first looks at a new record. */
export const FIRST_CHECK_DELAY_MS = 1_000;

export interface BroadcastDeps {
  store: TransactionStore;
  clock: Clock;
  crashAt?: CrashAt;
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
  /**
   * The store's reservation of `fields.nonce` for this transaction: the record takes the nonce from
   * it in its insert, and the nonce is given back if the node refuses the transaction.
   */
  reservation: NonceReservation | null;
}

/** A record written with its signature, to send. */
export interface SignedBroadcast {
  record: TransactionRecord;
  target: ChainTarget;
  /** The reserved nonce to hand out again when the node refuses the transaction; null keeps it. */
  nonceToRelease: number | null;
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

/** The signed transaction's nonce went to another transaction meanwhile: nothing was recorded or sent; a retry runs again. */
function nonceReservationLost(): ApiError {
  const error = new ApiError(409, 'CONFLICT', 'The nonce prepared for this transaction was handed to another one while this request was being signed; nothing was sent: send the request again');
  error.releasesIdempotencyKey = true;
  return error;
}

/** What happened to a send: accepted (or already known), unknown (kept `pending` to re-send the same bytes), refused for good. */
export type SendOutcome = { kind: 'accepted'; submittedAt?: Date } | { kind: 'uncertain' } | { kind: 'refused'; record: TransactionRecord };

export interface SendOptions {
  /** A re-send of stored bytes: a nonce that reads as used means it was already mined. */
  resend: boolean;
  /** The nonce to hand out again when the node refuses the transaction (it never used it); null keeps it. */
  nonceToRelease: number | null;
  /**
   * A lost answer (RPC unreachable): `fail` records the broadcast failure (the partner retries the
   * request); `keep-pending` leaves the record `pending` for a worker to re-send the same bytes.
   */
  onUnreachable: 'fail' | 'keep-pending';
}

/**
 * Sends the signed bytes of a stored `pending` record. Acceptance (or an already known
 * transaction) makes it `submitted`; a refusal makes it `failed` at stage `broadcast`. Updates
 * apply only while the record is still `pending`: the monitor may already have resolved it.
 */
export async function sendRecorded(
  { store, clock, isDevnet, crashAt }: BroadcastDeps,
  record: TransactionRecord,
  target: ChainTarget,
  options: SendOptions,
): Promise<SendOutcome> {
  const devnet = isDevnet(record);
  const signedTransaction = record.signedTransaction!;
  try {
    if (target.type === 'EVM') await target.gateway.sendRawTransaction(signedTransaction as Hex);
    else await target.gateway.sendTransaction(signedTransaction);
    crashAt?.('broadcast');
  } catch (error) {
    const rejected = error instanceof BroadcastRejectedError;
    if (!rejected && !(error instanceof ChainUnavailableError)) throw error;
    if (!rejected && options.onUnreachable === 'keep-pending') return { kind: 'uncertain' };
    // A re-send may find its transaction already known or even mined (its nonce then reads as
    // used): the record stays for the monitor, which resolves it by its hash.
    const known = rejected && (error.code === 'ALREADY_PROCESSED' || (options.resend && error.code === 'NONCE_TOO_LOW'));
    if (!known) {
      const failureCode = rejected ? error.code : 'RPC_UNAVAILABLE';
      const at = clock.now();
      const failed = { ...record, status: 'failed' as const, failureStage: 'broadcast' as const, failureCode, failureMessage: (error as Error).message.slice(0, 500), resolvedAt: at, nextCheckAt: null };
      const saved = await store.update(record.id, failed, resolvedEvents(failed, devnet, at), 'pending');
      if (!saved) return { kind: 'accepted' };
      // A refused transaction never used its nonce: hand it out again. A lost answer may have.
      if (rejected && options.nonceToRelease !== null && failureCode !== 'NONCE_TOO_LOW') {
        await store.releaseNonce(record.walletId, record.chainId!, options.nonceToRelease);
      }
      return { kind: 'refused', record: saved };
    }
  }
  const at = clock.now();
  const submitted = { ...record, status: 'submitted' as const, submittedAt: at };
  await store.update(record.id, { status: 'submitted', submittedAt: at }, broadcastedEvents(submitted, devnet, at), 'pending');
  return { kind: 'accepted', submittedAt: at };
}

/** The answer to a broadcast request; with managed retry decided, the record's `autoRetry` (its first attempt). */
function answerOf(record: TransactionRecord): BroadcastResult {
  const autoRetry = typeof record.autoRetry === 'boolean' ? toTransactionDetail(record, []).autoRetry : undefined;
  return {
    body: { signedTransaction: record.signedTransaction ?? '', txHash: record.hash!, transactionId: record.id, ...(autoRetry ? { autoRetry } : {}) },
    headers: { 'x-transaction-id': record.id },
  };
}

/**
 * Signs, records and sends a transaction. The record (status `pending`, with the signed bytes and
 * the request's Idempotency-Key) is written in the signature's own commit (`recordSigned`: with its
 * audit row, `transaction.signed` event and spend) before the node sees the transaction, so a crash
 * between the two leaves a record the monitor still resolves and a retry of the request finds
 * (`replay`). The node's refusal or a lost answer leaves the record `failed` at stage `broadcast`
 * and answers with its id; acceptance makes it `submitted`.
 */
export function createBroadcaster(deps: BroadcastDeps) {
  const { store, clock, crashAt } = deps;
  async function send(record: TransactionRecord, target: ChainTarget, nonceToRelease: number | null, resend: boolean): Promise<BroadcastResult> {
    const outcome = await sendRecorded(deps, record, target, { resend, nonceToRelease, onUnreachable: 'fail' });
    if (outcome.kind === 'refused') throw broadcastFailed(outcome.record);
    // Accepted: the record is `submitted` now (its first attempt pending, sent when the lookup says).
    return answerOf(outcome.kind === 'accepted' ? { ...record, status: 'submitted', submittedAt: outcome.submittedAt ?? record.submittedAt } : record);
  }

  /** Writes the `pending` record (with `signature`, the signature's audit row, event and spend in the same statement). */
  async function create({ caller, wallet, intentKind, target, signedTransaction, hash, fields, reservation }: Broadcast, signature?: SignatureWrite | SignatureWrite[]): Promise<TransactionRecord> {
    const now = clock.now();
    return store
      .create(
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
        reservation?.reservationId,
        signature,
      )
      .catch((error: unknown) => {
        if (error instanceof NonceReservationLostError) throw nonceReservationLost();
        throw error;
      });
  }

  /**
   * Signs `intent` through the pipeline and records the signed bytes (`build` makes the broadcast
   * of them) in the same commit as the signature's audit row, event and spend: a process killed
   * before that commit leaves neither, one killed after it leaves a record the monitor resolves and
   * a retry finds. Throws as the pipeline does (nothing is then recorded); send the answer with `sendSigned`.
   * `alongside`: signatures the transaction carries (a batch's delegation), written in the same commit.
   */
  async function recordSigned(
    pipeline: SigningPipeline,
    intent: SigningIntent,
    build: (signedTransaction: string) => Omit<Broadcast, 'signedTransaction'>,
    alongside: SignatureWrite[] = [],
  ): Promise<SignedBroadcast> {
    const signed = await pipeline.signAndRecord(intent, async (result, signature) => {
      const signedTransaction = result.response.signedTransaction as string;
      crashAt?.('signed');
      const built = { ...build(signedTransaction), signedTransaction };
      return { record: await create(built, alongside.length > 0 ? [...alongside, signature] : signature), target: built.target, nonceToRelease: built.reservation ? built.fields.nonce : null };
    });
    crashAt?.('record-committed');
    return signed!.recorded;
  }

  /** Sends a record `recordSigned` wrote and answers as the broadcast request does. */
  const sendSigned = ({ record, target, nonceToRelease }: SignedBroadcast): Promise<BroadcastResult> => send(record, target, nonceToRelease, false);

  /**
   * The answer to a retried request (same Idempotency-Key) whose first run broadcast `record` but
   * died before its response was stored: never a second signature or transaction. A record still
   * `pending` was perhaps never sent, so its stored bytes are sent (again); a failed broadcast
   * answers its stored error; anything else answers as the first run would have.
   */
  async function replay(record: TransactionRecord, target: ChainTarget): Promise<BroadcastResult> {
    if (record.status === 'failed' && record.failureStage === 'broadcast') throw broadcastFailed(record);
    if (record.status === 'pending' && record.signedTransaction) return send(record, target, null, true);
    return answerOf(record);
  }

  return { replay, recordSigned, sendSigned };
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
