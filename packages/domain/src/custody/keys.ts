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
 * - ed25519 generation uses `generateKeyPairSync('ed25519')`; the seed is read from the PKCS#8
 *   DER export and the public key from the public JWK. The private key is deliberately NOT
 *   exported as JWK: on Node 20.20 / OpenSSL 3.0 repeated private-JWK exports were seen to
 *   deadlock the process after a few thousand calls.
 * - ed25519 seed -> public key uses @noble/curves: importing a raw seed into Node's crypto needs a
 *   PKCS#8 parse, which is slower than computing the point.
 */
import { createECDH, generateKeyPairSync } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';

export type Scheme = 'DKLS' | 'ED25519'; // DKLS = secp256k1

export interface GeneratedKey {
  /** 32 bytes: secp256k1 private key or ed25519 seed. The caller must wipe it after use. */
  secret: Uint8Array;
  /** secp256k1: 33-byte compressed point; ed25519: 32 bytes. */
  publicKey: Uint8Array;
}

export const SECRET_LENGTH = 32;

/** PKCS#8 v1 header of an Ed25519 private key; the 32-byte seed follows it. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

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
  const pair = generateKeyPairSync('ed25519');
  const der = pair.privateKey.export({ format: 'der', type: 'pkcs8' });
  try {
    if (der.length !== ED25519_PKCS8_PREFIX.length + SECRET_LENGTH || !der.subarray(0, ED25519_PKCS8_PREFIX.length).equals(ED25519_PKCS8_PREFIX)) {
      throw new Error('unexpected Ed25519 PKCS#8 encoding');
    }
    const secret = new Uint8Array(der.subarray(ED25519_PKCS8_PREFIX.length));
    const x = pair.publicKey.export({ format: 'jwk' }).x;
    if (typeof x !== 'string') throw new Error('Ed25519 public key export failed');
    const publicKey = new Uint8Array(Buffer.from(x, 'base64url'));
    if (publicKey.length !== 32) throw new Error('Ed25519 public key export failed');
    return { secret, publicKey };
  } finally {
    der.fill(0);
  }
}
