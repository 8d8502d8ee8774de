/**
 * The wallet's EIP-7702 authorization (delegation to Simple7702Account): the 32-byte hash its key
 * signs, and the signed authorization assembled from that signature.
 */
import { getAddress, type Address, type Hex, type SignedAuthorization } from 'viem';
import { hashAuthorization, verifyAuthorization as viemVerifyAuthorization } from 'viem/utils';
import { signatureParts, type SignatureInput } from './signature.ts';

export interface AuthorizationParams {
  /** The chain's id; never 0 (an authorization for chain 0 is valid on every chain). */
  chainId: number;
  /** The contract the EOA delegates to (Simple7702Account). */
  delegate: Address;
  /** The EOA's current transaction count (`readDelegation(...).nonce`): the relayer sends the transaction. */
  nonce: number;
}

function checked(p: AuthorizationParams): AuthorizationParams {
  if (!Number.isSafeInteger(p.chainId) || p.chainId <= 0) throw new RangeError(`chainId must be a positive integer, got ${p.chainId}`);
  if (!Number.isSafeInteger(p.nonce) || p.nonce < 0) throw new RangeError(`nonce must be an integer >= 0, got ${p.nonce}`);
  return { ...p, delegate: getAddress(p.delegate) };
}

/** keccak256(0x05 ‖ rlp([chainId, delegate, nonce])): what the wallet's key signs, raw (no EIP-191 prefix). */
export function authorizationHash(p: AuthorizationParams): Hex {
  const { chainId, delegate, nonce } = checked(p);
  return hashAuthorization({ chainId, contractAddress: delegate, nonce });
}

/** The signed authorization for an operation and the relayer transaction's authorizationList. */
export function signedAuthorization(p: AuthorizationParams, signature: SignatureInput): SignedAuthorization {
  const { chainId, delegate, nonce } = checked(p);
  const { r, s, yParity } = signatureParts(signature);
  return { address: delegate, chainId, nonce, r, s, yParity };
}

/** Whether `authorization` was signed by `signer` (check a signer's answer before using it). */
export function verifyAuthorization(authorization: SignedAuthorization, signer: Address): Promise<boolean> {
  return viemVerifyAuthorization({ authorization, address: signer });
}
