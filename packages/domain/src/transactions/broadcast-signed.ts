import { keccak256, type Hex } from 'viem';
import type { EncryptedShare } from '../custody/types.ts';
import { invalidRequest } from '../errors.ts';
import type { WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import { NO_RECORD_FIELDS, solanaSignature, type Broadcaster } from './broadcast.ts';
import { assertNoNonceHold, transactionIntent, type BroadcastResult, type ChainTargets, type TransactionServiceDeps } from './context.ts';
import { solanaPrecheck } from './solana-precheck.ts';

const ACTION = 'wallet.sign.sign-transaction';

/** sign-transaction with `broadcast: true` (EVM, Solana): sign as without it, recorded in the signature's commit, then send. */
export function createBroadcastSigned(deps: TransactionServiceDeps, targets: ChainTargets, broadcast: Broadcaster) {
  const { pipeline } = deps;

  /** `input` is the parsed body, `raw` the body as sent. */
  return async function broadcastSigned(
    caller: Caller,
    wallet: WalletRecord,
    shares: EncryptedShare[],
    input: Record<string, unknown>,
    raw: unknown,
  ): Promise<BroadcastResult> {
    if (wallet.type === 'EVM') {
      const tx = input.transaction as { chainId: number; to: string; value: string; nonce: number };
      const target = targets.evm(tx.chainId);
      await assertNoNonceHold(deps, wallet.id, tx.chainId);
      const rawTx = (raw as { transaction?: Record<string, unknown> }).transaction ?? {};
      const transfer = { to: tx.to, value: tx.value, tokenAddress: null };
      // Stored only when the request carried `value`; calldata is not decoded.
      const recorded = 'value' in rawTx ? { to: tx.to, value: tx.value } : {};
      const intent = transactionIntent({ caller, wallet, shares, action: ACTION, target, transfer }, input);
      const signed = await broadcast.recordSigned(pipeline, intent, (signedTransaction) => ({
        caller,
        wallet,
        intentKind: 'sign_transaction',
        target,
        hash: keccak256(signedTransaction as Hex),
        fields: { ...NO_RECORD_FIELDS, ...recorded, nonce: tx.nonce },
        reservation: null,
      }));
      return broadcast.sendSigned(signed);
    }
    if (wallet.type !== 'SOLANA') throw invalidRequest(`broadcast: true is not supported for ${wallet.type} wallets`);
    const target = targets.solana(input.network as string | undefined);
    const precheck = await solanaPrecheck(target.gateway, input.transaction as string);
    const intent = transactionIntent({ caller, wallet, shares, action: ACTION, target, transfer: null }, input);
    const signed = await broadcast.recordSigned(pipeline, intent, (signedTransaction) => ({
      caller,
      wallet,
      intentKind: 'sign_transaction',
      target,
      hash: solanaSignature(signedTransaction, wallet.address),
      fields: { ...NO_RECORD_FIELDS, recentBlockhash: precheck.blockhash, nonceAccount: precheck.nonceAccount },
      reservation: null,
    }));
    return broadcast.sendSigned(signed);
  };
}
