/**
 * The native value a signature lets leave the wallet, as the signer's own value cap reads it:
 * decoded from the payload by the same decoders the policies use (EVM transaction `value`, the
 * System transfers of a Solana transaction), not taken from the caller.
 *
 * An EVM transaction from the wallet to itself runs the wallet's EIP-7702 delegation (the service
 * delegates to Simple7702Account for sponsorship and batched calls): `execute` and `executeBatch`
 * send the value of their calls out of the wallet though the transaction's own `value` is 0, so
 * those calls' values count; any other calldata to itself is a value the signer cannot read.
 */
import { decodeFunctionData, type Hex } from 'viem';
import { EXECUTE_BATCH_ABI, SIMPLE_7702_EXECUTE_ABI } from '../calls/encoding.ts';
import type { PolicyActionName } from '../policies/facts.ts';
import { decodeEvmRequest } from '../policies/request-facts-evm.ts';
import { decodeSolanaRequest } from '../policies/request-facts-solana.ts';
import type { SigningContext } from '../signing/pipeline.ts';
import type { SignOperationName } from '../signing/signers.ts';
import type { VaultWallet } from './vault.ts';

const DELEGATED_ACCOUNT_ABI = [...EXECUTE_BATCH_ABI, ...SIMPLE_7702_EXECUTE_ABI] as const;

/** What a call of the wallet to itself sends on through its delegation: 0 without calldata, null when the calldata is not `execute`/`executeBatch`. */
function delegatedOutflow(wallet: VaultWallet, input: Record<string, unknown>): bigint | null {
  const tx = (input.transaction ?? {}) as { to?: unknown; data?: unknown };
  if (typeof tx.to !== 'string' || tx.to.toLowerCase() !== wallet.address.toLowerCase()) return 0n;
  if (typeof tx.data !== 'string' || tx.data.length <= 2) return 0n;
  try {
    const call = decodeFunctionData({ abi: DELEGATED_ACCOUNT_ABI, data: tx.data as Hex });
    if (call.functionName === 'execute') return call.args[1];
    return call.args[0].reduce((sum, c) => sum + c.value, 0n);
  } catch {
    return null;
  }
}

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
  if (wallet.type === 'EVM') {
    const delegated = delegatedOutflow(wallet, input);
    if (delegated === null) return { chain: wallet.type, value: null };
    value += delegated;
  }
  for (const leg of request.legs) {
    if (leg.asset !== 'native') continue;
    if (leg.amount === null) return { chain: wallet.type, value: null };
    value += leg.amount;
  }
  return { chain: wallet.type, value };
}
