import { invalidRequest } from '../errors.ts';
import type { Caller } from '../shared/caller.ts';
import { parseInput } from '../shared/zod.ts';
import { assertSignable } from '../signing/signers.ts';
import { createBroadcaster } from './broadcast.ts';
import { createBroadcastSigned } from './broadcast-signed.ts';
import { createCancel } from './cancel.ts';
import { createChainTargets, type BroadcastResult, type TransactionServiceDeps } from './context.ts';
import { createEvmTransfers } from './evm-transfer.ts';
import { createTransactionHistory } from './history.ts';
import { createSolanaTransfers } from './solana-transfer.ts';
import { transferBodyFor } from './schemas.ts';

export type { BroadcastResult, TransactionServiceDeps } from './context.ts';
export { FIRST_CHECK_DELAY_MS } from './broadcast.ts';
export { toTransactionDetail, toTransactionSummary } from './history.ts';

/**
 * Transfers, broadcasts of signed transactions, manual cancellation and the transaction history,
 * one file per operation. Every signature goes through the signing pipeline; every broadcast
 * writes its record before the node sees the transaction (broadcast.ts).
 */
export function createTransactionService(deps: TransactionServiceDeps) {
  const targets = createChainTargets(deps);
  const broadcast = createBroadcaster({ store: deps.store, clock: deps.clock, isDevnet: targets.isDevnet });
  const transfers = { EVM: createEvmTransfers(deps, targets, broadcast), SOLANA: createSolanaTransfers(deps, targets, broadcast) };

  return {
    isDevnet: targets.isDevnet,

    async transfer(caller: Caller, walletId: string, body: unknown): Promise<BroadcastResult> {
      const { wallet, shares } = await deps.loadWalletWithShares(caller, walletId);
      assertSignable(wallet);
      if (wallet.type !== 'EVM' && wallet.type !== 'SOLANA') throw invalidRequest(`transfer is supported for EVM and SOLANA wallets, not ${wallet.type}`);
      const input = parseInput(transferBodyFor(wallet.type, 'transfer'), body);
      return transfers[wallet.type].transfer(caller, wallet, shares, input);
    },

    async estimateFee(caller: Caller, walletId: string, body: unknown) {
      const wallet = await deps.loadWallet(caller, walletId);
      if (wallet.type !== 'EVM' && wallet.type !== 'SOLANA') throw invalidRequest(`estimate-fee is supported for EVM and SOLANA wallets, not ${wallet.type}`);
      const input = parseInput(transferBodyFor(wallet.type, 'estimate'), body);
      return transfers[wallet.type].estimate(wallet, input);
    },

    broadcastSigned: createBroadcastSigned(deps, targets, broadcast),
    cancel: createCancel(deps, targets, broadcast),
    ...createTransactionHistory(deps),
  };
}

export type TransactionService = ReturnType<typeof createTransactionService>;
