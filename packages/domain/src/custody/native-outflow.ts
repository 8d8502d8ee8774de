/**
 * The native value a signature lets leave the wallet, as the signer's own value cap reads it:
 * decoded from the payload by the same decoders the policies use (EVM transaction `value`, the
 * System transfers of a Solana transaction), not taken from the caller.
 */
import type { PolicyActionName } from '../policies/facts.ts';
import { decodeEvmRequest } from '../policies/request-facts-evm.ts';
import { decodeSolanaRequest } from '../policies/request-facts-solana.ts';
import type { SigningContext } from '../signing/pipeline.ts';
import type { SignOperationName } from '../signing/signers.ts';
import type { VaultWallet } from './vault.ts';

export interface NativeOutflow {
  chain: 'EVM' | 'SOLANA';
  /** Base units (wei, lamports); null when native value moves by an amount that could not be decoded. */
  value: bigint | null;
}

/** Null for wallet types or operations that move no native value the signer can read (messages, raw bytes, other chains). */
export function nativeOutflow(wallet: VaultWallet, operation: SignOperationName, input: Record<string, unknown>): NativeOutflow | null {
  if (operation !== 'transaction' || (wallet.type !== 'EVM' && wallet.type !== 'SOLANA')) return null;
  const context = {
    wallet: { address: wallet.address, type: wallet.type },
    operation,
    input,
    chain: { walletType: wallet.type, chainId: null, network: null },
    transfer: null,
  } as unknown as SigningContext;
  const request = wallet.type === 'EVM' ? decodeEvmRequest(context) : decodeSolanaRequest(context, 'sign_transaction' as PolicyActionName);
  let value = 0n;
  for (const leg of request.legs) {
    if (leg.asset !== 'native') continue;
    if (leg.amount === null) return { chain: wallet.type, value: null };
    value += leg.amount;
  }
  return { chain: wallet.type, value };
}
