/**
 * The owner's part: the v0.8 user operation hash (EIP-712 over the packed op, domain ERC4337 v1 of
 * the EntryPoint). Simple7702Account checks `ECDSA.recover(userOpHash, signature) == address(this)`,
 * so the wallet's key signs this hash raw, with no EIP-191 prefix. It is known before submission.
 */
import type { Address, Hex } from 'viem';
import { getUserOperationHash } from 'viem/account-abstraction';
import { ENTRY_POINT_V08_ADDRESS } from './constants.ts';
import { signatureHex, type SignatureInput } from './signature.ts';
import { toViemUserOperation, type SponsoredUserOperation } from './user-operation.ts';

/** userOpHash (what `UserOperationEvent` is indexed by). Sponsor the op first: the hash covers paymasterData. */
export function userOperationHash(op: SponsoredUserOperation, chainId: number, entryPoint: Address = ENTRY_POINT_V08_ADDRESS): Hex {
  if (op.paymasterData === '0x') throw new Error('the op has no paymaster data yet: sponsor it before hashing it for the owner');
  return getUserOperationHash({ chainId, entryPointAddress: entryPoint, entryPointVersion: '0.8', userOperation: toViemUserOperation(op) });
}

/** The op with the owner's signature over `userOperationHash(op)` (65 bytes). */
export function withOwnerSignature(op: SponsoredUserOperation, signature: SignatureInput): SponsoredUserOperation {
  if (op.paymasterData === '0x') throw new Error('the op has no paymaster data yet: sponsor it before the owner signs');
  return { ...op, signature: signatureHex(signature) };
}
