/**
 * The monitor's `SolanaRebuilder` (attempts.ts): builds a Solana transfer record's transfer again on
 * a fresh blockhash, as solana-transfer.ts built the first attempt, and signs it through the signing
 * pipeline as the record's project, API key and environment, with the record's transfer intent and
 * the `feeReplacementOf` option (policies decide again; spend is not charged again; audited).
 */
import type { EncryptedShare } from '../custody/types.ts';
import type { WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { SigningPipeline } from '../signing/pipeline.ts';
import { parseSigningInput } from '../signing/pipeline.ts';
import type { SolanaRebuilder, TransactionAttemptStore } from './attempts.ts';
import { solanaSignature } from './broadcast.ts';
import { TRANSFER_ACTION } from './context.ts';
import { recordCaller } from './fee-replacement.ts';
import type { ChainGateways } from './gateways.ts';

export interface SolanaRebuilderDeps {
  pipeline: SigningPipeline;
  gateways: ChainGateways;
  attempts: Pick<TransactionAttemptStore, 'environmentOf'>;
  loadWalletWithShares: (caller: Caller, walletId: string) => Promise<{ wallet: WalletRecord; shares: EncryptedShare[] }>;
}

export function createSolanaRebuilder({ pipeline, gateways, attempts, loadWalletWithShares }: SolanaRebuilderDeps): SolanaRebuilder {
  return {
    async sign(record, { recentBlockhash }, store) {
      if (record.walletType !== 'SOLANA' || record.intentKind !== 'transfer' || !record.network || record.to === null || record.value === null) {
        throw new Error('only Solana transfer records are rebuilt');
      }
      const gateway = gateways.solana(record.network);
      if (!gateway) throw new Error(`network ${record.network} is not configured`);
      const caller = await recordCaller(record, attempts);
      const { wallet, shares } = await loadWalletWithShares(caller, record.walletId);
      const built = await gateway.buildTransfer({ from: wallet.address, to: record.to, amount: BigInt(record.value), mint: record.tokenAddress ?? undefined, recentBlockhash });
      const signed = await pipeline.signAndRecord(
        {
          caller,
          wallet,
          shares,
          operation: 'transaction',
          action: TRANSFER_ACTION,
          chain: { walletType: 'SOLANA', chainId: null, network: record.network },
          transfer: { to: record.to, value: record.value, tokenAddress: record.tokenAddress },
          input: parseSigningInput(wallet.type, 'transaction', { transaction: built.transaction, network: record.network }),
          feeReplacementOf: record.id,
        },
        async (result, signature) => {
          const signedTransaction = result.response.signedTransaction as string;
          const attempt = { signedTransaction, signature: solanaSignature(signedTransaction, wallet.address) };
          return (await store(attempt, signature)) ? attempt : null;
        },
      );
      return signed?.recorded ?? null;
    },
  };
}
