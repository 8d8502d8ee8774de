/**
 * Wallet key generation.
 *
 * - `DKLS` wallets use secp256k1: the secret is the 32-byte private scalar, the public key is the
 *   33-byte compressed point.
 * - `ED25519` wallets: the secret is the 32-byte RFC 8032 seed, the public key the 32-byte point.
 *
 * Implementation notes (measured on the target machine, see the custody tests for consistency
 * checks against @noble/curves):
 * - secp256k1 uses Node's OpenSSL ECDH object; it is faster than @noble/curves 2.x here, and
 *   `getPrivateKey()` is left-padded because OpenSSL drops leading zero bytes (~1 key in 256).
 * - ed25519 generation uses `generateKeyPairSync('ed25519')` with DER output (PKCS#8 / SPKI) and
 *   slices the raw 32 bytes out of the fixed-size encodings. Never export these keys as JWK: on
 *   Node 20.20 `KeyObject.export({ format: 'jwk' })` of a key made by `generateKeyPairSync` can
 *   self-deadlock (ExportJWKEdKey holds the key mutex while allocating a V8 string; the GC it
 *   triggers runs ~KeyGenJob, which takes the same mutex). Seen after a few thousand calls.
 * - ed25519 seed -> public key uses @noble/curves: importing a raw seed into Node's crypto needs a
 *   PKCS#8 parse, which is slower than computing the point.
 */
import { createECDH, generateKeyPairSync, type ED25519KeyPairOptions } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';

export type Scheme = 'DKLS' | 'ED25519'; // DKLS = secp256k1

export interface GeneratedKey {
  /** 32 bytes: secp256k1 private key or ed25519 seed. The caller must wipe it after use. */
  secret: Uint8Array;
  /** secp256k1: 33-byte compressed point; ed25519: 32 bytes. */
  publicKey: Uint8Array;
}

export const SECRET_LENGTH = 32;

/** DER headers of an Ed25519 PKCS#8 v1 private key and SPKI public key; 32 raw bytes follow. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const ED25519_DER_ENCODING: ED25519KeyPairOptions<'der', 'der'> = {
  privateKeyEncoding: { type: 'pkcs8', format: 'der' },
  publicKeyEncoding: { type: 'spki', format: 'der' },
};

export function generateKey(scheme: Scheme): GeneratedKey {
  switch (scheme) {
    case 'DKLS':
      return generateSecp256k1();
    case 'ED25519':
      return generateEd25519();
    default:
      throw new Error(`unsupported key scheme ${String(scheme)}`);
  }
}

export function publicKeyFromSecret(scheme: Scheme, secret: Uint8Array): Uint8Array {
  if (secret.length !== SECRET_LENGTH) throw new Error(`a ${scheme} secret must be ${SECRET_LENGTH} bytes`);
  switch (scheme) {
    case 'DKLS': {
      const ecdh = createECDH('secp256k1');
      try {
        // A view, not a copy, so no extra copy of the secret is left behind.
        ecdh.setPrivateKey(Buffer.from(secret.buffer, secret.byteOffset, secret.byteLength));
      } catch {
        throw new Error('the secret is not a valid secp256k1 private key');
      }
      return new Uint8Array(ecdh.getPublicKey(null, 'compressed'));
    }
    case 'ED25519':
      return ed25519.getPublicKey(secret);
    default:
      throw new Error(`unsupported key scheme ${String(scheme)}`);
  }
}

function generateSecp256k1(): GeneratedKey {
  const ecdh = createECDH('secp256k1');
  ecdh.generateKeys();
  const publicKey = new Uint8Array(ecdh.getPublicKey(null, 'compressed'));
  const raw = ecdh.getPrivateKey();
  const secret = new Uint8Array(SECRET_LENGTH);
  secret.set(raw, SECRET_LENGTH - raw.length);
  raw.fill(0);
  return { secret, publicKey };
}

function generateEd25519(): GeneratedKey {
  const { privateKey: pkcs8, publicKey: spki } = generateKeyPairSync('ed25519', ED25519_DER_ENCODING);
  try {
    if (!hasPrefix(pkcs8, ED25519_PKCS8_PREFIX) || !hasPrefix(spki, ED25519_SPKI_PREFIX)) {
      throw new Error('unexpected Ed25519 DER encoding');
    }
    return {
      secret: new Uint8Array(pkcs8.subarray(ED25519_PKCS8_PREFIX.length)),
      publicKey: new Uint8Array(spki.subarray(ED25519_SPKI_PREFIX.length)),
    };
  } finally {
    pkcs8.fill(0);
  }
}

function hasPrefix(der: Buffer, prefix: Buffer): boolean {
  return der.length === prefix.length + 32 && der.subarray(0, prefix.length).equals(prefix);
}
