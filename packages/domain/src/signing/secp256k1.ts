/**
 * The one secp256k1 signer (EVM and Cosmos): ECDSA over a 32-byte digest with RFC 6979 nonces and
 * low S, by libsecp256k1 (Bitcoin Core's library: constant time, reviewed). Two builds of it, the
 * same signatures byte for byte (secp256k1.test.ts):
 * - native, the `secp256k1` package's prebuilt N-API addon (linux, macOS, Windows on x64/arm64):
 *   ~40 µs a signature here, the fast path of the signer process;
 * - WebAssembly (tiny-secp256k1), where no prebuilt addon loads: ~90 µs.
 * Both replaced @noble/curves on the signing path (~6x slower, and ~85 KB of garbage per
 * signature from its constant-time BigInt arithmetic, which drove mark-compact pauses into the p99).
 * Loaded on the first signature (CommonJS, so signing stays synchronous): processes that never
 * sign (most API processes at rest, the CLIs) should not carry either build.
 */
import { createRequire } from 'node:module';

type SignRecoverable = (digest: Uint8Array, secret: Uint8Array) => { signature: Uint8Array; recoveryId: number };
interface NativeSecp256k1 {
  ecdsaSign(digest: Uint8Array, secret: Uint8Array): { signature: Uint8Array; recid: number };
}

let library: { build: 'native' | 'wasm'; sign: SignRecoverable } | undefined;

function load() {
  if (library) return library;
  const require = createRequire(import.meta.url);
  try {
    // The addon itself (`/bindings`), never the package's index, which falls back to elliptic (JavaScript, not constant time).
    const native = require('secp256k1/bindings') as NativeSecp256k1;
    library = {
      build: 'native',
      sign: (digest, secret) => {
        const { signature, recid } = native.ecdsaSign(digest, secret);
        return { signature, recoveryId: recid };
      },
    };
  } catch {
    const wasm = require('tiny-secp256k1') as typeof import('tiny-secp256k1');
    library = { build: 'wasm', sign: (digest, secret) => wasm.signRecoverable(digest, secret) };
  }
  return library;
}

/** Which build signs in this process (the signer logs it at start-up). */
export function secp256k1Build(): 'native' | 'wasm' {
  return load().build;
}

export interface Secp256k1Signature {
  /** r || s, 64 bytes, s in the lower half of the order. */
  signature: Uint8Array;
  /** 0 or 1 (2 and 3, for R.x >= n, have no Ethereum encoding and are refused). */
  recoveryId: 0 | 1;
}

export function signSecp256k1(digest: Uint8Array, secret: Uint8Array): Secp256k1Signature {
  const { signature, recoveryId } = load().sign(digest, secret);
  // Probability ~2^-128: R.x wrapped around the group order.
  if (recoveryId > 1) throw new Error('unrepresentable secp256k1 recovery id');
  return { signature, recoveryId: recoveryId as 0 | 1 };
}
