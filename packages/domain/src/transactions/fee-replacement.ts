/**
 * The monitor's `FeeReplacer` (attempts.ts): signs a fee replacement through the signing pipeline,
 * as the record's project, API key and environment, with the record's intent (a transfer, or a
 * yield step's call) and the
 * `feeReplacementOf` option (policies decide again; spend is not charged again; audited in the
 * attempt's own commit).
 */
import type { EncryptedShare } from '../custody/types.ts';
import type { TransactionRecord, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { SigningPipeline } from '../signing/pipeline.ts';
import { parseSigningInput } from '../signing/pipeline.ts';
import type { FeeReplacer, TransactionAttemptStore } from './attempts.ts';
import { parseTransaction, type Hex } from 'viem';
import { CALLS_ACTION } from '../calls/actions.ts';
import { yieldSigningActionOf } from '../yield/calls.ts';
import { TRANSFER_ACTION } from './context.ts';

export interface FeeReplacerDeps {
  pipeline: SigningPipeline;
  attempts: Pick<TransactionAttemptStore, 'environmentOf'>;
  loadWalletWithShares: (caller: Caller, walletId: string) => Promise<{ wallet: WalletRecord; shares: EncryptedShare[] }>;
}

/**
 * The caller a later attempt of `record` is signed as: its project and API key, in the key's
 * environment (records name their key, not the environment).
 */
export async function recordCaller(record: TransactionRecord, attempts: Pick<TransactionAttemptStore, 'environmentOf'>): Promise<Caller> {
  const environment = record.apiKeyId ? await attempts.environmentOf(record.apiKeyId) : null;
  return {
    partnerId: record.partnerId,
    projectId: record.projectId,
    apiKeyId: record.apiKeyId ?? '',
    environment: environment ?? 'production',
    plan: 'free',
    requestId: null,
  };
}

export function createFeeReplacer({ pipeline, attempts, loadWalletWithShares }: FeeReplacerDeps): FeeReplacer {
  return {
    async sign(record, tx, store) {
      // A transfer is judged as the transfer it is; a yield step as the yield call it makes again.
      const action =
        record.intentKind === 'transfer' ? TRANSFER_ACTION : record.intentKind === 'yield' ? yieldSigningActionOf(tx.data as Hex | null) : record.intentKind === 'calls' ? CALLS_ACTION : null;
      const batch = record.intentKind === 'calls' && record.calls ? record.calls : null;
      if (record.walletType !== 'EVM' || !action || !record.chainId || (!batch && (record.to === null || record.value === null))) {
        throw new Error('only EVM transfers, yield steps and batches of calls are replaced');
      }
      // A batch's first transaction may carry the wallet's delegation: its replacement carries the same one (same nonce).
      const carried = batch ? (parseTransaction(record.signedTransaction as Hex).authorizationList ?? []) : [];
      const authorizationList = carried.map((a) => ({ address: a.address, chainId: a.chainId, nonce: a.nonce, r: a.r, s: a.s, yParity: a.yParity ?? 0 }));
      const caller = await recordCaller(record, attempts);
      const { wallet, shares } = await loadWalletWithShares(caller, record.walletId);
      const body = {
        transaction: {
          to: tx.to,
          value: tx.value,
          ...(tx.data ? { data: tx.data } : {}),
          chainId: Number(record.chainId),
          type: authorizationList.length > 0 ? 4 : 2,
          nonce: tx.nonce,
          gasLimit: tx.gasLimit,
          maxFeePerGas: tx.maxFeePerGas,
          maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
          ...(authorizationList.length > 0 ? { authorizationList } : {}),
        },
      };
      const signed = await pipeline.signAndRecord(
        {
          caller,
          wallet,
          shares,
          operation: 'transaction',
          action,
          chain: { walletType: 'EVM', chainId: record.chainId, network: null },
          transfer: record.intentKind === 'transfer' && record.to !== null && record.value !== null ? { to: record.to, value: record.value, tokenAddress: record.tokenAddress } : null,
          ...(batch ? { calls: batch } : {}),
          input: parseSigningInput(wallet.type, 'transaction', body),
          feeReplacementOf: record.id,
        },
        async (result, signature) => ((await store(result.response.signedTransaction as string, signature)) ? (result.response.signedTransaction as string) : null),
      );
      return signed?.recorded ?? null;
    },
  };
}
