/**
 * Yield operations as stored and as the REST routes show them (spec: Yield operation, Yield
 * transaction step, Yield operation status), and the store port the operation routes and the yield
 * worker share.
 */
import { z } from 'zod';
import type { AuditEntry, Environment, NewTransactionRecord, SignatureWrite, TransactionRecord, TransactionStatus } from '../ports.ts';
import type { YieldAction } from './execution.ts';
import type { YieldSource } from './markets.ts';

export type YieldOperationStatus = 'pending' | 'submitted' | 'confirmed' | 'failed' | 'requires_action' | 'cancelled';
export type YieldPhase = 'approval' | 'action';

/** Working states: the worker advances them; one of them per wallet and chain runs at a time (oldest first). */
export const ACTIVE_YIELD_STATUSES: readonly YieldOperationStatus[] = ['pending', 'submitted'];
export const TERMINAL_YIELD_STATUSES: readonly YieldOperationStatus[] = ['confirmed', 'failed', 'cancelled'];

/** Operation error codes of the spec, plus the outcomes it leaves open (docs/yield.md). */
export type YieldErrorCode =
  | 'AAVE_SUPPLY_CAP_EXCEEDED'
  | 'SIGNING_REQUIRES_ACTION'
  | 'NONCE_CONSUMED'
  | 'POLICY_REVIEW_REQUIRED'
  | 'POLICY_DENIED'
  | 'TRANSACTION_REVERTED'
  | 'BROADCAST_FAILED';

export interface YieldOperationError {
  code: YieldErrorCode;
  message: string | null;
  reviewId?: string;
}

/** The next transaction of an operation once its nonce is allocated, kept until it is signed (and reused on every retry). */
export interface PreparedYieldTransaction {
  phase: YieldPhase;
  /** The audit action of the signature (the policy action derives from it). */
  signingAction: string;
  to: string;
  data: string;
  nonce: number;
  gasLimit: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
}

/** What the worker fixed at preparation; never changed by a retry. */
export interface YieldPlan {
  /** Vault deposit: the bundler's minimum shares (preview at preparation, 0.03 % price bound), base units. */
  minShares?: string;
  /** Vault withdrawal of `all`: the share balance captured at preparation. */
  shares?: string;
  prepared?: PreparedYieldTransaction;
}

/** A signed step: its transaction record's current outcome. */
export interface YieldStepRecord {
  phase: YieldPhase;
  transactionId: string;
  hash: string;
  nonce: number;
  recordStatus: TransactionStatus;
  failureCode: string | null;
  failureMessage: string | null;
  blockNumber: bigint | null;
  blockHash: string | null;
}

export interface YieldOperationRecord {
  id: string;
  projectId: string;
  partnerId: string;
  walletId: string;
  apiKeyId: string | null;
  environment: Environment;
  requestId: string | null;
  idempotencyKey: string;
  chainId: number;
  marketId: string;
  source: YieldSource;
  action: YieldAction;
  amount: string;
  status: YieldOperationStatus;
  error: YieldOperationError | null;
  plan: YieldPlan;
  consecutiveErrors: number;
  steps: YieldStepRecord[];
  createdAt: Date;
  updatedAt: Date;
}

export type NewYieldOperation = Omit<YieldOperationRecord, 'status' | 'error' | 'plan' | 'consecutiveErrors' | 'steps' | 'createdAt' | 'updatedAt'>;

/** A change the worker saves while it holds the operation's lease. */
export interface YieldOperationPatch {
  status?: YieldOperationStatus;
  error?: YieldOperationError | null;
  plan?: YieldPlan;
  /** When the worker should look again; null = nothing due (terminal, requires_action). */
  nextRunAt: Date | null;
  consecutiveErrors?: number;
  resolvedAt?: Date | null;
}

export type YieldResumeOutcome = { outcome: 'resumed'; operation: YieldOperationRecord } | { outcome: 'busy' } | { outcome: 'unchanged'; operation: YieldOperationRecord };
export type YieldCancelOutcome = { outcome: 'cancelled'; operation: YieldOperationRecord } | { outcome: 'refused'; operation: YieldOperationRecord; reason: 'signed' | 'terminal' | 'leased' };

export interface YieldOperationStore {
  /** Inserts the operation (`pending`, due now) unless the partner already used the key; answers the stored one. */
  create(operation: NewYieldOperation, now: Date): Promise<{ operation: YieldOperationRecord; created: boolean }>;
  findByKey(partnerId: string, idempotencyKey: string): Promise<YieldOperationRecord | null>;
  findInWallet(projectId: string, walletId: string, operationId: string): Promise<YieldOperationRecord | null>;
  /**
   * `requires_action` → `pending` (error cleared, due now), only while no other operation of the
   * wallet and chain is active: `busy` otherwise; `unchanged` when it is not in `requires_action`.
   */
  resume(operationId: string, now: Date): Promise<YieldResumeOutcome>;
  /**
   * → `cancelled`, only for unsigned work (pending or requires_action without an unresolved step)
   * that the worker does not hold right now; an already cancelled one is answered as `cancelled`.
   * A prepared, unsigned transaction's nonce is released, and `audit` (the console's row naming the
   * staff member) appended, in the same transaction.
   */
  cancel(operationId: string, now: Date, audit?: AuditEntry): Promise<YieldCancelOutcome>;
  /** Leases due active operations, oldest first, skipping any with an older active one on the same wallet and chain. */
  leaseDue(owner: string, now: Date, leaseUntil: Date, limit: number): Promise<YieldOperationRecord[]>;
  /** Extends the leases `owner` still holds on these operations (a run in progress keeps its operations). */
  renewLeases(owner: string, operationIds: string[], leaseUntil: Date): Promise<void>;
  /** Whether `owner` still holds the operation's lease at `now` (checked right before signing). */
  holdsLease(owner: string, operationId: string, now: Date): Promise<boolean>;
  /** Saves the patch and releases the lease, if `owner` still holds it; false when it did not. */
  save(owner: string, operationId: string, patch: YieldOperationPatch): Promise<boolean>;
  /**
   * Allocates the wallet's next nonce on the chain (as TransactionStore.allocateNonce) and stores
   * `plan` with the prepared transaction and its nonce, in one transaction, if `owner` still holds
   * the lease (null otherwise; nothing allocated). A transaction of the same phase already prepared
   * is answered as it is: an operation never holds two nonces.
   */
  prepare(owner: string, operationId: string, plan: YieldPlan, prepared: Omit<PreparedYieldTransaction, 'nonce'>, chainPendingNonce: number): Promise<PreparedYieldTransaction | null>;
  /**
   * Stores a signed step: creates its transaction record (signed bytes included), links it to the
   * operation and moves the operation to `submitted` with the prepared transaction cleared — one
   * transaction, only if `owner` still holds the lease (which it keeps). Null when it did not. With
   * `signature`, the step's signature (audit row, event, spend) is written in the same statement.
   */
  addStep(owner: string, operationId: string, phase: YieldPhase, record: NewTransactionRecord, nextRunAt: Date, signature?: SignatureWrite): Promise<TransactionRecord | null>;
  /** An active operation on the wallet and chain holds a prepared (nonce allocated) or unresolved signed transaction. */
  holdsWalletChain(walletId: string, chainId: number): Promise<boolean>;
}

/** The REST step status: a record not yet accepted by a node is `signed`. */
export function stepStatus(recordStatus: TransactionStatus): 'signed' | 'submitted' | 'confirmed' | 'reverted' | 'failed' {
  return recordStatus === 'pending' ? 'signed' : recordStatus;
}

/** The spec's Yield operation body. */
export function yieldOperationView(operation: YieldOperationRecord) {
  return {
    id: operation.id,
    walletId: operation.walletId,
    chainId: operation.chainId,
    marketId: operation.marketId,
    source: operation.source,
    action: operation.action,
    amount: operation.amount,
    status: operation.status,
    transactions: operation.steps.map((step) => ({
      phase: step.phase,
      hash: step.hash,
      nonce: step.nonce,
      transactionId: step.transactionId,
      status: stepStatus(step.recordStatus),
      ...(step.blockNumber !== null ? { blockNumber: Number(step.blockNumber) } : {}),
      ...(step.blockHash !== null ? { blockHash: step.blockHash } : {}),
    })),
    ...(operation.error
      ? { error: { code: operation.error.code, message: operation.error.message, ...(operation.error.reviewId ? { reviewId: operation.error.reviewId } : {}) } }
      : {}),
    createdAt: operation.createdAt.toISOString(),
    updatedAt: operation.updatedAt.toISOString(),
  };
}

export type YieldOperationView = ReturnType<typeof yieldOperationView>;

export const yieldOperationSchema = z
  .object({
    id: z.uuid(),
    walletId: z.uuid(),
    chainId: z.number().int(),
    marketId: z.string(),
    source: z.enum(['poolprov-v3', 'vaultprov-v2']),
    action: z.enum(['deposit', 'withdraw']),
    amount: z.string().meta({ description: 'The normalized decimal USDC amount ("10" is "10.0"), or `all` for withdrawals' }),
    status: z.enum(['pending', 'submitted', 'confirmed', 'failed', 'requires_action', 'cancelled']),
    transactions: z.array(
      z.object({
        phase: z.enum(['approval', 'action']),
        hash: z.string(),
        nonce: z.number().int().min(0),
        transactionId: z.uuid().meta({ description: 'The transaction record (intentKind `yield`) of this step' }),
        status: z.enum(['signed', 'submitted', 'confirmed', 'reverted', 'failed']),
        blockNumber: z.number().int().optional(),
        blockHash: z.string().optional(),
      }),
    ),
    error: z
      .object({
        code: z.string().meta({ description: 'AAVE_SUPPLY_CAP_EXCEEDED, SIGNING_REQUIRES_ACTION, NONCE_CONSUMED, POLICY_REVIEW_REQUIRED, POLICY_DENIED, TRANSACTION_REVERTED, BROADCAST_FAILED' }),
        message: z.string().nullable(),
        reviewId: z.string().optional(),
      })
      .optional(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'YieldOperation' });
