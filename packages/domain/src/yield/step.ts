/**
 * One yield step from a simulated call to a sent transaction: gas and fees, the nonce allocated and
 * stored with the prepared transaction (so a restart signs exactly it again), the signature through
 * the signing pipeline with the record (signed bytes included) stored in the signature's own commit
 * before any node sees it, then the send. An uncertain send leaves the record `pending` (step `signed`) and the worker re-sends
 * the same bytes later; it never signs a new fee or a replacement itself: the monitor's managed
 * retry replaces a step stuck under the base fee (same nonce and call, higher fees).
 */
import { keccak256, type Hex } from 'viem';
import { ApiError } from '../errors.ts';
import type { TransactionRecord, TransactionStore, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import type { CrashAt } from '../shared/crash-points.ts';
import type { EncryptedShare } from '../custody/types.ts';
import type { SigningPipeline } from '../signing/pipeline.ts';
import { FIRST_CHECK_DELAY_MS, sendRecorded, type SendOutcome } from '../transactions/broadcast.ts';
import { DEFAULT_CEILING_MULTIPLIER } from '../transactions/attempts.ts';
import { decideAutoRetry, type ProjectAutoRetryDefault } from '../transactions/auto-retry-policy.ts';
import { signTransactionAndRecord, transactionIntent } from '../transactions/context.ts';
import type { EvmGateway } from '../transactions/gateways.ts';
import type { YieldCall } from './calls.ts';
import type { PreparedYieldTransaction, YieldOperationRecord, YieldOperationStore, YieldPlan } from './operations.ts';

/** Vault and pool calls run out of gas with the bare estimate (recipe: at least 20 %). */
const GAS_MARGIN_PERCENT = 125n;

export interface YieldStepDeps {
  store: YieldOperationStore;
  transactions: TransactionStore;
  pipeline: SigningPipeline;
  clock: Clock;
  isDevnet: (record: Pick<TransactionRecord, 'walletType' | 'chainId' | 'network'>) => boolean;
  loadWalletWithShares: (caller: Caller, walletId: string) => Promise<{ wallet: WalletRecord; shares: EncryptedShare[] }>;
  /** The project's managed-retry default (console); absent or null: the built-in one (on, 10 × the first maxFeePerGas). */
  autoRetryDefault?: (caller: Caller) => Promise<ProjectAutoRetryDefault | null>;
  /** Fault injection in tests (CRASH_AT `signed`): kills the process between a step's signature and its record. */
  crashAt?: CrashAt;
}

/** The signer of every step: the caller who created the operation (policies, audit, spend). */
export function operationCaller(operation: YieldOperationRecord): Caller {
  return {
    partnerId: operation.partnerId,
    projectId: operation.projectId,
    apiKeyId: operation.apiKeyId ?? '',
    environment: operation.environment,
    // Signing reads neither the plan nor rate limits; the caller type requires one.
    plan: 'free',
    requestId: operation.requestId,
  };
}

export function createYieldSteps({ store, transactions, pipeline, clock, isDevnet, loadWalletWithShares, autoRetryDefault, crashAt }: YieldStepDeps) {
  /** Sends stored signed bytes; a lost answer keeps the record `pending` for the worker to re-send the same bytes. */
  const send = (gateway: EvmGateway, record: TransactionRecord, resend: boolean): Promise<SendOutcome> =>
    sendRecorded({ store: transactions, clock, isDevnet }, record, { type: 'EVM', gateway, chainId: record.chainId! }, { resend, nonceToRelease: record.nonce, onUnreachable: 'keep-pending' });

  /**
   * Gas (with the margin), fees and the nonce for `call`, stored with `plan` before anything is
   * signed; null when the lease was lost meanwhile. Gas estimation runs the call once more: a
   * revert there is `BroadcastRejectedError('EXECUTION_FAILED')` for the caller to judge.
   */
  async function prepare(owner: string, operation: YieldOperationRecord, gateway: EvmGateway, wallet: Hex, call: YieldCall, plan: YieldPlan): Promise<PreparedYieldTransaction | null> {
    const [gas, fees, pendingNonce] = await Promise.all([
      gateway.estimateGas({ from: wallet, to: call.to, value: 0n, data: call.data }),
      gateway.getFeeSuggestion(),
      gateway.getPendingNonce(wallet),
    ]);
    return store.prepare(
      owner,
      operation.id,
      plan,
      {
        phase: call.phase,
        signingAction: call.signingAction,
        to: call.to,
        data: call.data,
        gasLimit: ((gas * GAS_MARGIN_PERCENT) / 100n).toString(),
        maxFeePerGas: fees.maxFeePerGas.toString(),
        maxPriorityFeePerGas: (fees.maxPriorityFeePerGas > fees.maxFeePerGas ? fees.maxFeePerGas : fees.maxPriorityFeePerGas).toString(),
      },
      pendingNonce,
    );
  }

  /**
   * Signs the prepared transaction through the pipeline, stores its record with the step (the
   * operation becomes `submitted`) and sends it. Signing the same prepared transaction again (after
   * a crash before the record was stored) gives the same bytes: ECDSA here is deterministic.
   * Throws the pipeline's ApiError (policy denial, wallet no longer signable) before anything is stored.
   */
  async function signAndSend(owner: string, operation: YieldOperationRecord, gateway: EvmGateway, prepared: PreparedYieldTransaction, nextRunAt: Date): Promise<SendOutcome | null> {
    const caller = operationCaller(operation);
    const { wallet, shares } = await loadWalletWithShares(caller, operation.walletId);
    const target = { type: 'EVM' as const, gateway, chainId: String(operation.chainId) };
    // A lease lost since it was last checked (a stalled process; another one continues) signs nothing.
    if (!(await store.holdsLease(owner, operation.id, clock.now()))) return null;
    // Managed automatic retry (docs/yield.md): the project's default, else on with a ceiling of 10 × the first fee.
    const retry = decideAutoRetry(undefined, (await autoRetryDefault?.(caller)) ?? null, {
      enabled: true,
      ceiling: (BigInt(prepared.maxFeePerGas) * DEFAULT_CEILING_MULTIPLIER).toString(),
    });
    const intent = transactionIntent(
      { caller, wallet, shares, action: prepared.signingAction, target, transfer: null },
      {
        transaction: {
          to: prepared.to,
          value: '0',
          data: prepared.data,
          chainId: operation.chainId,
          type: 2,
          nonce: prepared.nonce,
          gasLimit: prepared.gasLimit,
          maxFeePerGas: prepared.maxFeePerGas,
          maxPriorityFeePerGas: prepared.maxPriorityFeePerGas,
        },
      },
    );
    // The step's record is stored in the signature's own commit (a lease lost meanwhile stores neither).
    const record = await signTransactionAndRecord(pipeline, intent, (signed, signature) => {
      crashAt?.('signed');
      const now = clock.now();
      return store.addStep(
        owner,
        operation.id,
        prepared.phase,
        {
          id: crypto.randomUUID(),
          projectId: operation.projectId,
          partnerId: operation.partnerId,
          walletId: operation.walletId,
          walletType: 'EVM',
          intentKind: 'yield',
          status: 'pending',
          chainId: String(operation.chainId),
          network: null,
          fromAddress: wallet.address,
          to: prepared.to,
          value: '0',
          tokenAddress: null,
          nonce: prepared.nonce,
          hash: keccak256(signed as Hex),
          recentBlockhash: null,
          lastValidBlockHeight: null,
          nonceAccount: null,
          failureStage: null,
          failureCode: null,
          failureMessage: null,
          monitoring: null,
          cancellationOf: null,
          requestId: operation.requestId,
          apiKeyId: operation.apiKeyId,
          signedTransaction: signed,
          autoRetry: retry.enabled,
          autoRetryMaxFeePerGas: retry.ceiling,
          submittedAt: null,
          nextCheckAt: new Date(now.getTime() + FIRST_CHECK_DELAY_MS),
        },
        nextRunAt,
        signature,
      );
    });
    if (!record) return null;
    return send(gateway, record, false);
  }

  return { send, prepare, signAndSend };
}

export type YieldSteps = ReturnType<typeof createYieldSteps>;

/** Errors of the pipeline that end or pause the operation instead of being retried. */
export function isSigningRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && (error.status === 403 || error.status === 409);
}
