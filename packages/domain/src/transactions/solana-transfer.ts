import { getBase64Decoder, getTransactionDecoder } from '@solana/kit';
import { formatUnits } from 'viem';
import type { EncryptedShare } from '../custody/types.ts';
import type { WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import { fieldError } from '../shared/zod.ts';
import { NO_RECORD_FIELDS, solanaSignature, type Broadcaster } from './broadcast.ts';
import type { SigningContext } from '../signing/pipeline.ts';
import { beforeRecord, transactionIntent, transferContext, TRANSFER_ACTION, type BroadcastResult, type ChainTargets, type TransactionServiceDeps } from './context.ts';
import { autoRetrySwitch } from './auto-retry-policy.ts';
import { transferKind, type TransferInput } from './schemas.ts';

/** Rent-exempt minimum of an SPL token account (165 bytes), paid when a transfer creates one. */
const TOKEN_ACCOUNT_RENT_LAMPORTS = 2_039_280n;
const ASSUMED_FEE_LAMPORTS = 5000n;

/** Solana transfers (SOL and SPL tokens) and their fee estimates. */
export function createSolanaTransfers(deps: TransactionServiceDeps, targets: ChainTargets, broadcast: Broadcaster) {
  /** The unsigned transaction of a body that passed `transferBodyFor('SOLANA', ...)`. */
  async function plan(wallet: WalletRecord, input: TransferInput) {
    const target = targets.solana(input.network);
    const kind = transferKind('SOLANA', input);
    const amount = BigInt(input.value);
    let decimals = 9;
    if (kind === 'SPL') {
      const mintDecimals = await beforeRecord(target.gateway.getMintDecimals(input.tokenAddress!));
      if (mintDecimals === null) throw fieldError('tokenAddress', 'not an SPL token mint on this network');
      decimals = mintDecimals;
    }
    const latest = await beforeRecord(target.gateway.getLatestBlockhash());
    const built = await beforeRecord(
      target.gateway.buildTransfer({ from: wallet.address, to: input.to, amount, mint: input.tokenAddress, recentBlockhash: latest.blockhash }),
    );
    return { target, amount, decimals, latest, built };
  }

  return {
    async transfer(caller: Caller, wallet: WalletRecord, shares: EncryptedShare[], input: TransferInput): Promise<BroadcastResult> {
      const { target, latest, built } = await plan(wallet, input);
      const transfer = { to: input.to, value: input.value, tokenAddress: input.tokenAddress ?? null };
      const autoRetry = autoRetrySwitch(input.autoRetry, (await deps.autoRetryDefault?.(caller)) ?? null, true);
      const intent = transactionIntent({ caller, wallet, shares, action: TRANSFER_ACTION, target, transfer }, { transaction: built.transaction, network: target.network });
      const signed = await broadcast.recordSigned(deps.pipeline, intent, (signedTransaction) => ({
        caller,
        wallet,
        intentKind: 'transfer',
        target,
        hash: solanaSignature(signedTransaction, wallet.address),
        fields: {
          ...NO_RECORD_FIELDS,
          ...transfer,
          recentBlockhash: latest.blockhash,
          lastValidBlockHeight: latest.lastValidBlockHeight,
          // Managed retry rebuilds an expired transfer (monitor-rebuild.ts); it has no fee ceiling.
          autoRetry,
          autoRetryMaxFeePerGas: null,
        },
        reservation: null,
      }));
      return broadcast.sendSigned(signed);
    },

    /** The intent a transfer would sign, for dry runs: built the same way (read-only chain calls), not signed. */
    async preview(caller: Caller, wallet: WalletRecord, input: TransferInput): Promise<SigningContext> {
      const { target, built } = await plan(wallet, input);
      return transferContext(caller, wallet, target, input, { transaction: built.transaction, network: target.network });
    },

    async estimate(wallet: WalletRecord, input: TransferInput) {
      const { target, amount, decimals, built } = await plan(wallet, input);
      const message = getTransactionDecoder().decode(Buffer.from(built.transaction, 'base64')).messageBytes;
      const fee = await beforeRecord(target.gateway.getFeeForMessage(getBase64Decoder().decode(message)));
      const rent = built.createsTokenAccount ? TOKEN_ACCOUNT_RENT_LAMPORTS : 0n;
      const warnings = [
        ...(fee === null ? ['The fee could not be computed for the current blockhash; the estimate assumes 5000 lamports per signature'] : []),
        ...(rent > 0n ? ["Includes the rent of the recipient's new token account"] : []),
      ];
      return {
        estimatedFee: formatUnits((fee ?? ASSUMED_FEE_LAMPORTS) + rent, 9),
        transferAmount: formatUnits(amount, decimals),
        currency: targets.chainInfo(target)?.nativeCurrency.symbol ?? 'SOL',
        ...(warnings.length ? { warning: warnings.join('. ') } : {}),
      };
    },
  };
}
