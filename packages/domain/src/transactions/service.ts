import { conflict, invalidRequest, notFound } from '../errors.ts';
import type { Caller } from '../shared/caller.ts';
import { parseInput } from '../shared/zod.ts';
import type { SigningContext } from '../signing/pipeline.ts';
import { assertSignable } from '../signing/signers.ts';
import { createBroadcaster } from './broadcast.ts';
import { createBroadcastSigned } from './broadcast-signed.ts';
import { createCancel } from './cancel.ts';
import { createChainTargets, type BroadcastResult, type SponsoredAccepted, type TransactionServiceDeps } from './context.ts';
import { createEvmTransfers } from './evm-transfer.ts';
import { createTransactionHistory, toTransactionDetail } from './history.ts';
import type { TransactionRecord } from './records.ts';
import { createSolanaTransfers } from './solana-transfer.ts';
import { transferBodyFor } from './schemas.ts';

export type { BroadcastResult, SponsoredAccepted, TransactionServiceDeps } from './context.ts';

const sponsoredAccepted = (record: TransactionRecord): SponsoredAccepted => ({ status: 202, body: toTransactionDetail(record), headers: { 'x-transaction-id': record.id } });
export { FIRST_CHECK_DELAY_MS } from './broadcast.ts';
export { toTransactionDetail, toTransactionSummary } from './history.ts';

/**
 * Transfers, broadcasts of signed transactions, manual cancellation and the transaction history,
 * one file per operation. Every signature goes through the signing pipeline; every broadcast
 * writes its record before the node sees the transaction (broadcast.ts).
 */
export function createTransactionService(deps: TransactionServiceDeps) {
  const targets = createChainTargets(deps);
  const broadcast = createBroadcaster({ store: deps.store, clock: deps.clock, isDevnet: targets.isDevnet, crashAt: deps.crashAt });
  const transfers = { EVM: createEvmTransfers(deps, targets, broadcast), SOLANA: createSolanaTransfers(deps, targets, broadcast) };
  const broadcastSigned = createBroadcastSigned(deps, targets, broadcast);
  const cancel = createCancel(deps, targets, broadcast);

  /**
   * A retry of a request that already broadcast (its Idempotency-Key is on a record) replays it; a
   * sponsored record is only read (the worker carries it on).
   */
  async function earlierBroadcast(caller: Caller): Promise<BroadcastResult | SponsoredAccepted | null> {
    if (!caller.idempotencyKey) return null;
    const record = await deps.store.findByIdempotencyKey(caller.projectId, caller.idempotencyKey);
    if (!record) return null;
    if (record.executionMode === 'sponsored') return sponsoredAccepted(record);
    const target = record.walletType === 'EVM' ? targets.evm(Number(record.chainId)) : targets.solana(record.network ?? undefined);
    return broadcast.replay(record, target);
  }

  /** Only a transfer makes sponsored records: another route's key that names one is a key reused for another request. */
  function legacyOnly(earlier: BroadcastResult | SponsoredAccepted | null): BroadcastResult | null {
    if (earlier && 'status' in earlier) throw conflict('Idempotency-Key was already used by a sponsored transfer; use a new key for this request');
    return earlier;
  }

  return {
    isDevnet: targets.isDevnet,

    async transfer(caller: Caller, walletId: string, body: unknown): Promise<BroadcastResult | SponsoredAccepted> {
      const { wallet, shares } = await deps.loadWalletWithShares(caller, walletId);
      assertSignable(wallet);
      const earlier = await earlierBroadcast(caller);
      if (earlier) return earlier;
      if (wallet.type !== 'EVM' && wallet.type !== 'SOLANA') throw invalidRequest(`transfer is supported for EVM and SOLANA wallets, not ${wallet.type}`);
      const input = parseInput(transferBodyFor(wallet.type, 'transfer'), body);
      if (wallet.type === 'EVM' && deps.sponsoredAdmission) {
        const sponsored = await deps.sponsoredAdmission.admit(caller, wallet, input);
        if (sponsored) return sponsoredAccepted(sponsored);
      }
      return transfers[wallet.type].transfer(caller, wallet, shares, input);
    },

    /** The intent a transfer body would sign (dry runs): validated like the route, built, not signed. */
    async previewTransfer(caller: Caller, walletId: string, body: unknown): Promise<SigningContext> {
      const wallet = await deps.loadWallet(caller, walletId);
      assertSignable(wallet);
      if (wallet.type !== 'EVM' && wallet.type !== 'SOLANA') throw invalidRequest(`transfer is supported for EVM and SOLANA wallets, not ${wallet.type}`);
      const input = parseInput(transferBodyFor(wallet.type, 'transfer'), body);
      return transfers[wallet.type].preview(caller, wallet, input);
    },

    async estimateFee(caller: Caller, walletId: string, body: unknown) {
      const wallet = await deps.loadWallet(caller, walletId);
      if (wallet.type !== 'EVM' && wallet.type !== 'SOLANA') throw invalidRequest(`estimate-fee is supported for EVM and SOLANA wallets, not ${wallet.type}`);
      const input = parseInput(transferBodyFor(wallet.type, 'estimate'), body);
      return transfers[wallet.type].estimate(wallet, input);
    },

    async broadcastSigned(...args: Parameters<typeof broadcastSigned>): Promise<BroadcastResult> {
      return legacyOnly(await earlierBroadcast(args[0])) ?? broadcastSigned(...args);
    },

    async cancel(...args: Parameters<typeof cancel>): Promise<BroadcastResult> {
      return legacyOnly(await earlierBroadcast(args[0])) ?? cancel(...args);
    },

    /** Resumes a sponsored transfer paused for review: 202 with the record (unchanged without a pending review). */
    async resume(caller: Caller, walletId: string, transactionId: string, body: unknown): Promise<SponsoredAccepted> {
      if (!deps.sponsoredResume) {
        await deps.loadWallet(caller, walletId);
        throw notFound('Transaction');
      }
      return sponsoredAccepted(await deps.sponsoredResume(caller, walletId, transactionId, body));
    },

    ...createTransactionHistory(deps),
  };
}

export type TransactionService = ReturnType<typeof createTransactionService>;
