/**
 * The one secp256k1 signer (EVM and Cosmos): ECDSA over a 32-byte digest with RFC 6979 nonces and
 * low S, by libsecp256k1 compiled to WebAssembly (tiny-secp256k1). It replaced @noble/curves on
 * the signing path: the same signatures byte for byte, about 6x faster on this machine, and it
 * allocates almost nothing per signature, where noble's constant-time BigInt arithmetic allocated
 * ~85 KB each; at 200 signatures/s that garbage drove the main thread's mark-compact pauses into
 * the p99. The library also zeroes its copy of the key after every call.
 * Loaded on the first signature (its CommonJS build, so signing stays synchronous): compiling and
 * instantiating the module costs some 10 MB of resident memory, which processes that never sign
 * (most API processes at rest, the CLIs) should not carry.
 */
import { createRequire } from 'node:module';

type TinySecp256k1 = typeof import('tiny-secp256k1');
let library: TinySecp256k1 | undefined;
const load = () => (library ??= createRequire(import.meta.url)('tiny-secp256k1') as TinySecp256k1);

export interface Secp256k1Signature {
  /** r || s, 64 bytes, s in the lower half of the order. */
  signature: Uint8Array;
  /** 0 or 1 (2 and 3, for R.x >= n, have no Ethereum encoding and are refused). */
  recoveryId: 0 | 1;
}

export function signSecp256k1(digest: Uint8Array, secret: Uint8Array): Secp256k1Signature {
  const { signature, recoveryId } = load().signRecoverable(digest, secret);
  // Probability ~2^-128: R.x wrapped around the group order.
  if (recoveryId > 1) throw new Error('unrepresentable secp256k1 recovery id');
  return { signature, recoveryId: recoveryId as 0 | 1 };
}
