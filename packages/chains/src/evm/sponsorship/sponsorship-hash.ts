/**
 * The sponsor's part of an operation (SingletonPaymasterV8, verifying mode): paymasterData =
 * uint8 mode (0x01: verifying, any bundler) ‖ uint48 validUntil ‖ uint48 validAfter ‖ 65-byte
 * signature over `getHash(0, op)`. The hash is computed here as the paymaster computes it; a test
 * holds it equal to the contract's own `getHash` on anvil.
 */
import { concat, encodeAbiParameters, encodePacked, hashMessage, keccak256, type Hex } from 'viem';
import { PAYMASTER_MODE_VERIFYING_ANY_BUNDLER } from './constants.ts';
import { signatureHex, type SignatureInput } from './signature.ts';
import { packUserOperation, type SponsoredUserOperation } from './user-operation.ts';

export interface SponsorshipWindow {
  /** Unix seconds after which the paymaster refuses the op (AA32); > validAfter. Leave room for retries. */
  validUntil: number;
  /** Unix seconds before which it refuses it; 0 for at once. */
  validAfter: number;
}

const MAX_UINT48 = 2 ** 48 - 1;
/** paymaster address (20) + verification gas (16) + postOp gas (16) */
const PAYMASTER_DATA_OFFSET = 52;

function checkedWindow({ validUntil, validAfter }: SponsorshipWindow): SponsorshipWindow {
  for (const [name, v] of [['validUntil', validUntil], ['validAfter', validAfter]] as const) {
    if (!Number.isSafeInteger(v) || v < 0 || v > MAX_UINT48) throw new RangeError(`${name} must be a uint48 number of seconds, got ${v}`);
  }
  if (validUntil <= validAfter) throw new RangeError('validUntil must be after validAfter');
  return { validUntil, validAfter };
}

/** mode ‖ validUntil ‖ validAfter: the paymasterData the sponsor signs over, before its signature is appended. */
export function sponsorshipPrefix(window: SponsorshipWindow): Hex {
  const { validUntil, validAfter } = checkedWindow(window);
  return encodePacked(['uint8', 'uint48', 'uint48'], [PAYMASTER_MODE_VERIFYING_ANY_BUNDLER, validUntil, validAfter]);
}

/** The op as the paymaster sees it while hashing: paymasterData = the prefix, no signature of its own. */
export function withSponsorshipPrefix(op: SponsoredUserOperation, window: SponsorshipWindow): SponsoredUserOperation {
  return { ...op, paymasterData: sponsorshipPrefix(window) };
}

/**
 * SingletonPaymasterV8 `getHash(0, op)` for `op` with that window, on chain `chainId`:
 * keccak256(abi.encode(keccak256(abi.encode(sender, nonce, accountGasLimits, preVerificationGas,
 * gasFees, keccak256(initCode), keccak256(callData), keccak256(paymasterAndData up to the end of
 * validAfter))), chainId)). initCode is hashed as sent (the 0x7702 marker), unlike the userOpHash.
 */
export function sponsorshipHash(op: SponsoredUserOperation, p: SponsorshipWindow & { chainId: number }): Hex {
  const prefix = sponsorshipPrefix(p);
  const packed = packUserOperation({ ...op, paymasterData: prefix, signature: '0x' });
  const signedPart = `0x${packed.paymasterAndData.slice(2, 2 + (PAYMASTER_DATA_OFFSET + (prefix.length - 2) / 2) * 2)}` as Hex;
  const opHash = keccak256(
    encodeAbiParameters(
      [
        { type: 'address' },
        { type: 'uint256' },
        { type: 'bytes32' },
        { type: 'uint256' },
        { type: 'bytes32' },
        { type: 'bytes32' },
        { type: 'bytes32' },
        { type: 'bytes32' },
      ],
      [
        packed.sender,
        packed.nonce,
        packed.accountGasLimits,
        packed.preVerificationGas,
        packed.gasFees,
        keccak256(packed.initCode),
        keccak256(packed.callData),
        keccak256(signedPart),
      ],
    ),
  );
  // The paymaster's address is not mixed in again: it leads paymasterAndData, which is hashed above.
  return keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [opHash, BigInt(p.chainId)]));
}

/** The 32 bytes a raw-hash signer signs for the sponsor: the EIP-191 message hash of `sponsorshipHash` (signMessage({ raw })). */
export function sponsorshipDigest(hash: Hex): Hex {
  return hashMessage({ raw: hash });
}

/**
 * The op with its final paymasterData. The owner signs after this (its hash covers the paymaster
 * data), so an op that already carries an owner signature is refused.
 */
export function withSponsorSignature(op: SponsoredUserOperation, p: SponsorshipWindow & { signature: SignatureInput }): SponsoredUserOperation {
  if (op.signature !== '0x') throw new Error('the op is already signed by its owner: sponsor it first, then have the owner sign');
  return { ...op, paymasterData: concat([sponsorshipPrefix(p), signatureHex(p.signature)]) };
}
