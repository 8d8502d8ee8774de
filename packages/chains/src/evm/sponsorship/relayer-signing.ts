/**
 * The relayer's transaction as bytes: assembled from a `HandleOpsRequest` and the relayer's nonce and
 * fees, the 32-byte hash its key signs, and the signed raw transaction for eth_sendRawTransaction.
 */
import { keccak256, serializeTransaction, type Hex, type TransactionSerializableEIP1559, type TransactionSerializableEIP7702 } from 'viem';
import type { HandleOpsRequest } from './relayer-transaction.ts';
import { signatureParts, type SignatureInput } from './signature.ts';

export type RelayerTransaction = TransactionSerializableEIP1559 | TransactionSerializableEIP7702;

export interface RelayerTransactionFields {
  chainId: number;
  /** The relayer's own transaction nonce. */
  nonce: number;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/** Type 4 (EIP-7702) when the request carries an authorization, else type 2. */
export function relayerTransaction(request: HandleOpsRequest, f: RelayerTransactionFields): RelayerTransaction {
  const common = { chainId: f.chainId, nonce: f.nonce, maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas, to: request.to, data: request.data, gas: request.gas, value: 0n };
  return request.authorizationList?.length
    ? { ...common, type: 'eip7702', authorizationList: request.authorizationList }
    : { ...common, type: 'eip1559' };
}

/** keccak256 of the unsigned serialized transaction: what the relayer's key signs, raw. */
export function relayerTransactionDigest(tx: RelayerTransaction): Hex {
  return keccak256(serializeTransaction(tx));
}

/** The signed transaction (eth_sendRawTransaction's parameter); its hash is keccak256 of these bytes. */
export function signedRelayerTransaction(tx: RelayerTransaction, signature: SignatureInput): Hex {
  return serializeTransaction(tx, signatureParts(signature));
}
