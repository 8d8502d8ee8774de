/**
 * The yield operation routes: deposit and withdrawal POSTs (durable Idempotency-Key, resume of a
 * paused operation), the operation lookup and cancellation. The work itself is the yield worker's
 * (runner.ts); these only create, resume, read and cancel stored operations.
 */
import { assertNoOpenNonceHold, type OpenNonceHold } from '../approvals/nonce-holds.ts';
import { ApiError, conflict, notFound } from '../errors.ts';
import type { WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { uuidSchema } from '../shared/zod.ts';
import type { YieldAction, YieldExecutionSwitch } from './execution.ts';
import { yieldOperationView, type YieldCancelOutcome, type YieldOperationRecord, type YieldOperationStore, type YieldOperationView } from './operations.ts';
import { assertSameYieldRequest, parseYieldRequest, yieldIdempotencyKey, yieldRequestIdentity, type YieldRequestIdentity } from './request.ts';
import type { YieldMarketCatalog } from './service.ts';

export interface YieldOperationServiceDeps {
  store: YieldOperationStore;
  catalog: YieldMarketCatalog;
  execution: YieldExecutionSwitch;
  clock: Clock;
  /** The caller's EVM wallet (404 missing or foreign, 400 not EVM). */
  loadYieldWallet: (caller: Caller, walletId: string) => Promise<WalletRecord>;
  /** An open approval case holding a transfer's nonce on (wallet, chain): new yield work would queue behind it. */
  openNonceHold?: OpenNonceHold;
}

/** A POST's answer: 202 with `Location` while the operation works, 200 once it is terminal or paused. */
export interface YieldPostResult {
  status: 200 | 202;
  body: YieldOperationView;
  headers: Record<string, string>;
}

export const yieldOperationLocation = (operation: Pick<YieldOperationRecord, 'walletId' | 'id'>) => `/v1/wallets/${operation.walletId}/yield/operations/${operation.id}`;

/** 409 for a refused cancellation (REST and the console): why it cannot be cancelled now. */
export function cancelRefused(outcome: Extract<YieldCancelOutcome, { outcome: 'refused' }>): ApiError {
  const { reason, operation } = outcome;
  const message =
    reason === 'terminal'
      ? `This operation is ${operation.status}; only unsigned work can be cancelled`
      : reason === 'signed'
        ? 'This operation has a signed transaction that is not resolved yet; it cannot be cancelled (poll the operation for its outcome)'
        : 'This operation is being processed right now; retry the cancellation in a moment';
  return conflict(message, { status: operation.status });
}

/** Spec yield rule 9 (public-shapes-2: 403 for a claimed or not API-created wallet, 409 when not ready). */
export function assertYieldEligible(wallet: WalletRecord): void {
  if (wallet.claimedAt) throw new ApiError(403, 'WALLET_ALREADY_CLAIMED', 'This wallet was claimed by its user; yield operations need an unclaimed API-created wallet');
  if (wallet.custody !== 'api_key') throw new ApiError(403, 'WALLET_NOT_MIGRATED', "This wallet's user share is held by the client; yield operations need an API-created wallet (migrate its share first)");
  if (wallet.status !== 'ready') throw new ApiError(409, 'WALLET_NOT_READY', 'Key generation of this wallet is not complete');
}

const identityOf = (operation: YieldOperationRecord): YieldRequestIdentity => ({
  walletId: operation.walletId,
  chainId: operation.chainId,
  marketId: operation.marketId,
  action: operation.action,
  amount: operation.amount,
});

export function createYieldOperationService({ store, catalog, execution, clock, loadYieldWallet, openNonceHold }: YieldOperationServiceDeps) {

  function answer(operation: YieldOperationRecord): YieldPostResult {
    const working = operation.status === 'pending' || operation.status === 'submitted';
    return { status: working ? 202 : 200, body: yieldOperationView(operation), headers: working ? { Location: yieldOperationLocation(operation) } : {} };
  }

  /** The same request again: read it, or (paused) retry it as new work. */
  async function again(operation: YieldOperationRecord, wallet: WalletRecord): Promise<YieldPostResult> {
    if (operation.status !== 'requires_action') return answer(operation);
    assertYieldEligible(wallet);
    execution.assertAllowed(operation.action);
    await assertNoOpenNonceHold(openNonceHold, wallet.id, operation.chainId);
    const resumed = await store.resume(operation.id, clock.now());
    if (resumed.outcome === 'busy') {
      throw new ApiError(409, 'YIELD_OPERATION_IN_PROGRESS', 'Another yield operation is active on this wallet and chain; retry this request once it has finished');
    }
    return answer(resumed.operation);
  }

  async function submit(caller: Caller, walletId: string, action: YieldAction, idempotencyKeyHeader: unknown, body: unknown): Promise<YieldPostResult> {
    const wallet = await loadYieldWallet(caller, walletId);
    const key = yieldIdempotencyKey(idempotencyKeyHeader);
    const request = parseYieldRequest(action, body, catalog.list());
    const identity = yieldRequestIdentity(wallet.id, action, request);
    const existing = await store.findByKey(caller.partnerId, key);
    if (existing) {
      assertSameYieldRequest(identityOf(existing), identity);
      return again(existing, wallet);
    }
    assertYieldEligible(wallet);
    execution.assertAllowed(action);
    await assertNoOpenNonceHold(openNonceHold, wallet.id, request.market.chainId);
    const { operation, created } = await store.create(
      {
        id: crypto.randomUUID(),
        projectId: caller.projectId,
        partnerId: caller.partnerId,
        walletId: wallet.id,
        apiKeyId: caller.apiKeyId,
        environment: caller.environment,
        requestId: caller.requestId,
        idempotencyKey: key,
        chainId: request.market.chainId,
        marketId: request.market.id,
        source: request.market.source,
        action,
        amount: request.amount,
      },
      clock.now(),
    );
    if (!created) {
      // A concurrent POST with the same key won the insert.
      assertSameYieldRequest(identityOf(operation), identity);
      return again(operation, wallet);
    }
    return answer(operation);
  }

  /**
   * The caller's operation in that wallet. Partners poll this, so the operation is read first, in
   * one statement scoped to the project and wallet (only an EVM wallet has operations); only when
   * there is none does the wallet answer for itself (404 missing or foreign, 400 not EVM).
   */
  async function find(caller: Caller, walletId: string, operationId: string): Promise<YieldOperationRecord> {
    const ids = uuidSchema.safeParse(walletId).success && uuidSchema.safeParse(operationId).success;
    const operation = ids ? await store.findInWallet(caller.projectId, walletId, operationId) : null;
    if (operation) return operation;
    await loadYieldWallet(caller, walletId);
    throw notFound('Yield operation');
  }

  return {
    deposit: (caller: Caller, walletId: string, idempotencyKey: unknown, body: unknown) => submit(caller, walletId, 'deposit', idempotencyKey, body),
    withdraw: (caller: Caller, walletId: string, idempotencyKey: unknown, body: unknown) => submit(caller, walletId, 'withdraw', idempotencyKey, body),

    async getOperation(caller: Caller, walletId: string, operationId: string): Promise<YieldOperationView> {
      return yieldOperationView(await find(caller, walletId, operationId));
    },

    /** Cancels unsigned work; 409 for an unresolved signed step, a confirmed or failed operation, or one the worker holds right now. */
    async cancel(caller: Caller, walletId: string, operationId: string): Promise<YieldOperationView> {
      const operation = await find(caller, walletId, operationId);
      const outcome = await store.cancel(operation.id, clock.now());
      if (outcome.outcome === 'cancelled') return yieldOperationView(outcome.operation);
      throw cancelRefused(outcome);
    },
  };
}

export type YieldOperationService = ReturnType<typeof createYieldOperationService>;

