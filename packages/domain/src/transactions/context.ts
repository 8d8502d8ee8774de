import type { ChainDirectory, ChainInfo } from '../chains/service.ts';
import type { EncryptedShare } from '../custody/types.ts';
import { ApiError } from '../errors.ts';
import type { NewTransactionRecord, SignatureWrite, TransactionRecord, TransactionStore, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import type { CrashAt } from '../shared/crash-points.ts';
import { fieldError } from '../shared/zod.ts';
import { parseSigningInput, type SigningChain, type SigningContext, type SigningIntent, type SigningPipeline, type SigningTransfer } from '../signing/pipeline.ts';
import { assertNoOpenNonceHold, type OpenNonceHold } from '../approvals/nonce-holds.ts';
import type { FrozenPreparationStore } from './frozen-preparation.ts';
import type { TransactionAttemptStore } from './attempts.ts';
import type { ProjectAutoRetryDefault } from './auto-retry-policy.ts';
import type { PolicyLocation } from '../policies/ports.ts';
import type { TransactionDetailView, TransferInput } from './schemas.ts';
import type { WalletService } from '../wallets/service.ts';
import { BroadcastRejectedError, ChainUnavailableError, type ChainGateways, type EvmGateway, type SolanaGateway } from './gateways.ts';

export interface TransactionServiceDeps {
  store: TransactionStore;
  /** Fee replacements of EVM transfer records, shown in the single lookup's `autoRetry`. */
  attempts?: Pick<TransactionAttemptStore, 'forRecords'>;
  /** The project's default of managed automatic retry for transfers (absent or null: the built-in one). */
  autoRetryDefault?: (at: PolicyLocation) => Promise<ProjectAutoRetryDefault | null>;
  /** Every signature of this module goes through it (policy, spend, sign, audit). */
  pipeline: SigningPipeline;
  gateways: ChainGateways;
  directory: ChainDirectory;
  clock: Clock;
  loadWallet: WalletService['loadWallet'];
  loadWalletWithShares: WalletService['loadWalletWithShares'];
  /** A yield operation holds a prepared or signed transaction on (wallet, EVM chain). */
  yieldHolds?: (walletId: string, chainId: number) => Promise<boolean>;
  /** EVM transfers awaiting approval: what they were prepared with (issue #14). */
  frozenPreparations?: FrozenPreparationStore;
  /** An open approval case holding a nonce on (wallet, EVM chain), other than the given case. */
  openNonceHold?: OpenNonceHold;
  /**
   * How long a transfer's reserved nonce waits for its record (default 20 s). A reservation whose
   * process died lapses after it, and the nonce is handed out again first; keep it shorter than
   * the Idempotency-Key lease, so a retried request finds its nonce free again.
   */
  nonceReservationMs?: number;
  /** Fault injection in tests (CRASH_AT): kills the process at a step of a broadcast. */
  crashAt?: CrashAt;
  /** Sponsored transfers: an eligible transfer of a project with sponsorship on becomes a sponsored record (202). */
  sponsoredAdmission?: { admit(caller: Caller, wallet: WalletRecord, input: TransferInput): Promise<TransactionRecord | null> };
  /** Resume of a sponsored record paused for review (absent: every id is 404). */
  sponsoredResume?: (caller: Caller, walletId: string, transactionId: string, body: unknown) => Promise<TransactionRecord>;
}

export const DEFAULT_NONCE_RESERVATION_MS = 20_000;

/**
 * Spec (yield states): a prepared or signed yield transaction blocks other REST broadcasts on the
 * same wallet and chain until it is resolved or safely cancelled — its nonce is taken. An open
 * approval case holding a transfer's nonce does the same (issue #14), except for its own resend.
 */
export async function assertNoNonceHold(
  deps: Pick<TransactionServiceDeps, 'yieldHolds' | 'openNonceHold'>,
  walletId: string,
  chainId: number,
  ownCaseId?: string,
): Promise<void> {
  if (deps.yieldHolds && (await deps.yieldHolds(walletId, chainId))) {
    throw new ApiError(409, 'YIELD_OPERATION_IN_PROGRESS', 'A yield operation of this wallet holds a prepared or signed transaction on this chain; broadcast again once it has resolved or been cancelled');
  }
  await assertNoOpenNonceHold(deps.openNonceHold, walletId, chainId, ownCaseId);
}

export type ChainTarget = { type: 'EVM'; gateway: EvmGateway; chainId: string } | { type: 'SOLANA'; gateway: SolanaGateway; network: string };

/** The record fields that differ between the kinds of broadcast. */
export type RecordFields = Pick<
  NewTransactionRecord,
  'to' | 'value' | 'tokenAddress' | 'nonce' | 'recentBlockhash' | 'lastValidBlockHeight' | 'nonceAccount' | 'cancellationOf' | 'autoRetry' | 'autoRetryMaxFeePerGas'
>;

export interface BroadcastResult {
  body: { signedTransaction: string; txHash: string; transactionId: string; autoRetry?: TransactionDetailView['autoRetry'] };
  headers: Record<string, string>;
}

/** A sponsored transfer's answer: 202 with its record (the worker carries it on; nothing signed is exposed). */
export interface SponsoredAccepted {
  status: 202;
  body: TransactionDetailView;
  headers: Record<string, string>;
}

export const rpcUnavailable = (error: unknown) =>
  new ApiError(503, 'RPC_UNAVAILABLE', `The chain's RPC could not be reached; retry later (${(error as Error).message.slice(0, 200)})`);

/** Maps gateway errors raised before any record exists to API errors. */
export async function beforeRecord<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ChainUnavailableError) throw rpcUnavailable(error);
    if (error instanceof BroadcastRejectedError) {
      throw new ApiError(400, error.code === 'EXECUTION_FAILED' ? 'EXECUTION_FAILED' : 'INVALID_REQUEST', `The node refused the transaction: ${error.message.slice(0, 300)}`);
    }
    throw error;
  }
}

/** The configured chains of this deployment, as targets of a transfer or broadcast. */
export function createChainTargets({ gateways, directory }: Pick<TransactionServiceDeps, 'gateways' | 'directory'>) {
  function chainInfo(target: { type: 'EVM' | 'SOLANA'; chainId?: string | null; network?: string | null }): ChainInfo | undefined {
    return directory
      .list()
      .find((c) => c.type === target.type && (target.type === 'EVM' ? c.chainId === target.chainId : c.network === target.network));
  }

  return {
    chainInfo,

    isDevnet: (record: Pick<TransactionRecord, 'walletType' | 'chainId' | 'network'>) =>
      chainInfo({ type: record.walletType, chainId: record.chainId, network: record.network })?.isDevnet ?? false,

    evm(chainId: number | undefined): ChainTarget & { type: 'EVM' } {
      if (chainId === undefined) throw fieldError('chainId', 'required for EVM wallets');
      const gateway = gateways.evm(chainId);
      if (!gateway) throw fieldError('chainId', `chain ${chainId} is not configured in this deployment (see GET /v1/chains)`);
      return { type: 'EVM', gateway, chainId: String(chainId) };
    },

    solana(network: string | undefined): ChainTarget & { type: 'SOLANA' } {
      const name = network ?? 'SOLANA';
      const gateway = gateways.solana(name);
      if (!gateway) throw fieldError('network', `${name} is not configured in this deployment (see GET /v1/chains)`);
      return { type: 'SOLANA', gateway, network: name };
    },
  };
}

export type ChainTargets = ReturnType<typeof createChainTargets>;

/** The chain of a target, as the signing pipeline names it. */
export const signingChain = (target: ChainTarget): SigningChain =>
  target.type === 'EVM' ? { walletType: 'EVM', chainId: target.chainId, network: null } : { walletType: 'SOLANA', chainId: null, network: target.network };

/** The pipeline's intent of signing a transaction body (parsed by the wallet type's schema). */
export function transactionIntent(
  intent: { caller: Caller; wallet: WalletRecord; shares: EncryptedShare[]; action: string; target: ChainTarget; transfer: SigningTransfer | null },
  body: unknown,
  serviceInitiated?: SigningIntent['serviceInitiated'],
): SigningIntent {
  const { target, ...rest } = intent;
  const input = parseSigningInput(intent.wallet.type, 'transaction', body);
  return { ...rest, operation: 'transaction', chain: signingChain(target), input, ...(serviceInitiated ? { serviceInitiated } : {}) };
}

/**
 * Signs a transaction body through the pipeline and has `record` write what was signed together
 * with the signature (`SigningPipeline.signAndRecord`); null when `record` wrote nothing.
 */
export async function signTransactionAndRecord<R>(
  pipeline: SigningPipeline,
  intent: SigningIntent,
  record: (signedTransaction: string, signature: SignatureWrite) => Promise<R | null>,
): Promise<R | null> {
  const signed = await pipeline.signAndRecord(intent, (result, signature) => record(result.response.signedTransaction as string, signature));
  return signed?.recorded ?? null;
}

/** The audit action of the transfer route (policies read it as the `transfer` action). */
export const TRANSFER_ACTION = 'wallet.sign.transfer';

/** The intent of a transfer, as the signing pipeline would receive it (dry runs). */
export function transferContext(caller: Caller, wallet: WalletRecord, target: ChainTarget, input: TransferInput, body: unknown): SigningContext {
  return {
    caller,
    wallet,
    operation: 'transaction',
    action: TRANSFER_ACTION,
    chain: signingChain(target),
    transfer: { to: input.to, value: input.value, tokenAddress: input.tokenAddress ?? null },
    input: parseSigningInput(wallet.type, 'transaction', body),
  };
}
