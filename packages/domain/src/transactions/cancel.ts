import { keccak256, type Hex } from 'viem';
import { conflict, notFound } from '../errors.ts';
import type { Caller } from '../shared/caller.ts';
import { fieldError, parseInput, uuidSchema } from '../shared/zod.ts';
import { assertSignable } from '../signing/signers.ts';
import { NO_RECORD_FIELDS, type Broadcaster } from './broadcast.ts';
import { beforeRecord, transactionIntent, type BroadcastResult, type ChainTargets, type TransactionServiceDeps } from './context.ts';
import { NATIVE_TRANSFER_GAS } from './evm-transfer.ts';
import { cancelInput } from './schemas.ts';

const ONE_GWEI = 1_000_000_000n;

/**
 * Consumes the nonce of a pending or submitted EVM record with a zero-value self-transfer at a
 * higher fee. The cancellation has its own record; the monitor marks the original `CANCELLED`
 * when the cancellation wins.
 */
export function createCancel(deps: TransactionServiceDeps, targets: ChainTargets, broadcast: Broadcaster) {
  const { store, pipeline } = deps;

  return async function cancel(caller: Caller, walletId: string, transactionId: string, body: unknown): Promise<BroadcastResult> {
    const { wallet, shares } = await deps.loadWalletWithShares(caller, walletId);
    const input = parseInput(cancelInput, body ?? {});
    const original = uuidSchema.safeParse(transactionId).success ? await store.findInWallet(caller.projectId, wallet.id, transactionId) : null;
    if (!original) throw notFound('Transaction');
    assertSignable(wallet);
    if (original.executionMode === 'sponsored') throw conflict('A sponsored transfer cannot be cancelled: its signed user operation is resubmitted until the chain shows its outcome');
    if (original.walletType !== 'EVM' || original.nonce === null) throw conflict('Only EVM transactions can be cancelled (Solana transactions expire with their blockhash)');
    if (original.status !== 'pending' && original.status !== 'submitted') {
      throw conflict(`The transaction is ${original.status}; only a pending or submitted transaction can be cancelled`);
    }
    const target = targets.evm(Number(original.chainId));
    const suggestion = await beforeRecord(target.gateway.getFeeSuggestion());
    // A replacement must outbid the original by at least 10%; twice the current ceiling does.
    // The 1 gwei added to the priority fee is added to the ceiling too, so it never exceeds it on a low-fee chain.
    const maxFeePerGas = input.maxFeePerGas ?? (suggestion.maxFeePerGas * 2n + ONE_GWEI).toString();
    const maxPriorityFeePerGas = input.maxPriorityFeePerGas ?? (suggestion.maxPriorityFeePerGas * 2n + ONE_GWEI).toString();
    if (BigInt(maxPriorityFeePerGas) > BigInt(maxFeePerGas)) throw fieldError('maxPriorityFeePerGas', 'must not exceed maxFeePerGas');
    const self = { to: wallet.address, value: '0', tokenAddress: null };
    const intent = transactionIntent(
      { caller, wallet, shares, action: 'wallet.sign.cancel', target, transfer: self },
      {
        transaction: {
          to: wallet.address,
          value: '0',
          chainId: Number(original.chainId),
          type: 2,
          nonce: original.nonce,
          gasLimit: NATIVE_TRANSFER_GAS.toString(),
          maxFeePerGas,
          maxPriorityFeePerGas,
        },
      },
    );
    const signed = await broadcast.recordSigned(pipeline, intent, (signedTransaction) => ({
      caller,
      wallet,
      intentKind: 'transfer',
      target,
      hash: keccak256(signedTransaction as Hex),
      fields: { ...NO_RECORD_FIELDS, to: wallet.address, value: '0', nonce: original.nonce, cancellationOf: original.id },
      reservation: null,
    }));
    return broadcast.sendSigned(signed);
  };
}
