import { parseTransaction, type Hex } from 'viem';
import { notFound } from '../errors.ts';
import { autoRetryView, type TransactionAttempt } from './attempts.ts';
import type { TransactionRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import { keysetPage, type Page } from '../shared/cursor.ts';
import { parseInput, uuidSchema } from '../shared/zod.ts';
import type { TransactionServiceDeps } from './context.ts';
import { listTransactionsQuery, type TransactionDetailView, type TransactionSummaryView } from './schemas.ts';

export function toTransactionSummary(record: TransactionRecord): TransactionSummaryView {
  const monitoring = record.monitoring;
  return {
    transactionId: record.id,
    walletId: record.walletId,
    walletType: record.walletType,
    intentKind: record.intentKind,
    status: record.status,
    createdAt: record.createdAt.toISOString(),
    chainId: record.chainId,
    network: record.network,
    ...(record.to !== null ? { to: record.to } : {}),
    ...(record.value !== null ? { value: record.value } : {}),
    ...(record.tokenAddress !== null ? { tokenAddress: record.tokenAddress } : {}),
    hash: record.hash,
    blockNumber: record.blockNumber === null ? null : record.blockNumber.toString(),
    blockHash: record.blockHash,
    failureStage: record.failureStage,
    failureCode: record.failureCode,
    failureMessage: record.failureMessage,
    submittedAt: record.submittedAt?.toISOString() ?? null,
    resolvedAt: record.resolvedAt?.toISOString() ?? null,
    ...(monitoring
      ? {
          monitoring: {
            chainOutcome: monitoring.chainOutcome ?? null,
            winningHash: monitoring.winningHash ?? null,
            winningStatus: monitoring.winningStatus ?? null,
            ...(monitoring.state ? { state: monitoring.state } : {}),
          },
        }
      : {}),
    executionMode: record.executionMode,
    ...(record.calls ? { calls: record.calls.map((c) => ({ ...c, selector: c.data.length >= 10 ? c.data.slice(0, 10) : null })) } : {}),
    ...(record.serviceInitiated ? { serviceInitiated: record.serviceInitiated } : {}),
  };
}

/**
 * The single lookup's view. `attempts`: the record's stored fee replacements (EVM) or rebuilds
 * (Solana); a transfer with managed retry decided (`autoRetry` not null) then shows its `autoRetry`.
 */
export function toTransactionDetail(record: TransactionRecord, attempts?: TransactionAttempt[]): TransactionDetailView {
  return {
    ...toTransactionSummary(record),
    nonce: record.nonce,
    ...(record.cancellationOf ? { cancellationOf: record.cancellationOf } : {}),
    ...(record.executionMode === 'sponsored'
      ? {
          stage: record.stage,
          reviewId: record.reviewId,
          userOperationHash: record.userOperationHash,
          actualGasCost: record.actualGasCost,
          autoRetry: sponsoredAutoRetry(record),
        }
      : {}),
    ...(record.executionMode !== 'sponsored' && attempts && typeof record.autoRetry === 'boolean' && record.hash && record.signedTransaction
      ? { autoRetry: autoRetryView(record, attempts, originalAttempt(record, record.signedTransaction)) }
      : {}),
  };
}

/** What the first attempt shows besides its hash: its blockhash (Solana), the fee fields of its signed bytes (EVM). */
function originalAttempt(record: TransactionRecord, signed: string): { maxFeePerGas?: string; maxPriorityFeePerGas?: string; recentBlockhash?: string } {
  if (record.walletType === 'SOLANA') return record.recentBlockhash ? { recentBlockhash: record.recentBlockhash } : {};
  const tx = parseTransaction(signed as Hex);
  return tx.maxFeePerGas !== undefined ? { maxFeePerGas: tx.maxFeePerGas.toString(), maxPriorityFeePerGas: (tx.maxPriorityFeePerGas ?? 0n).toString() } : {};
}

/** A sponsored record's submissions, as `autoRetry` shows them. */
function sponsoredAutoRetry(record: TransactionRecord): NonNullable<TransactionDetailView['autoRetry']> {
  const context = (record.monitoring as { sponsored?: { attempts?: TransactionAttemptView[]; reason?: string } } | null)?.sponsored;
  return { enabled: true, maxFeePerGas: null, attempts: context?.attempts ?? [], ...(context?.reason ? { reason: context.reason } : {}) };
}

type TransactionAttemptView = NonNullable<TransactionDetailView['autoRetry']>['attempts'][number];

/** The transaction history of a wallet: list (newest first, keyset cursor) and lookup. */
export function createTransactionHistory({ store, loadWallet, attempts }: Pick<TransactionServiceDeps, 'store' | 'loadWallet' | 'attempts'>) {
  return {
    async list(caller: Caller, walletId: string, query: unknown): Promise<Page<TransactionSummaryView>> {
      const wallet = await loadWallet(caller, walletId);
      const input = parseInput(listTransactionsQuery, query);
      return keysetPage(
        input,
        (after, limit) => store.list({ projectId: caller.projectId, walletId: wallet.id, status: input.status, intentKind: input.intentKind, after, limit }),
        toTransactionSummary,
      );
    },

    async get(caller: Caller, walletId: string, transactionId: string): Promise<TransactionDetailView> {
      const wallet = await loadWallet(caller, walletId);
      const record = uuidSchema.safeParse(transactionId).success ? await store.findInWallet(caller.projectId, wallet.id, transactionId) : null;
      if (!record) throw notFound('Transaction');
      const replacements = attempts && typeof record.autoRetry === 'boolean' ? ((await attempts.forRecords([record.id])).get(record.id) ?? []) : undefined;
      return toTransactionDetail(record, replacements);
    },
  };
}
