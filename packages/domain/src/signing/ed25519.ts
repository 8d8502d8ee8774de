/** Ed25519 signing with Node's crypto, shared by the Solana, Stellar and Sui signers. */
import { createPrivateKey, createPublicKey, sign as nodeSign, verify as nodeVerify, type KeyObject } from 'node:crypto';

/** DER header of an Ed25519 PKCS#8 v1 private key; the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** DER header of an Ed25519 SPKI public key; the 32-byte key follows. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/**
 * Importing the seed into Node's OpenSSL is most of the cost of a signature. Two ways exist on
 * Node 20:
 *
 * - PKCS#8 DER: the seed goes into a DER buffer of our own (not from the Buffer pool) that is
 *   wiped right after the import. OpenSSL 3.0 parses it through its generic decoder framework:
 *   about 450 us per import on the target machine, 10x the signature itself.
 * - JWK (`{ kty: 'OKP', crv: 'Ed25519', d }`): Node decodes `d` and calls
 *   `EVP_PKEY_new_raw_private_key` directly: about 45 us. The price: the seed passes through a
 *   base64url JS string and a pooled Buffer inside Node that cannot be wiped (they are garbage
 *   collected and later overwritten, the same class of leftover as the BigInt copies @noble/curves
 *   makes of every secp256k1 key it signs with). `x` is not read by Node on private import
 *   (Node 20.20 and current Node sources; the self-test below falls back to PKCS#8 should a
 *   later version start checking it).
 *   This is an IMPORT; the Node 20 deadlock of custody/keys.ts is in JWK EXPORT (which holds the
 *   key mutex while allocating a V8 string). Keys here are never exported as JWK.
 *
 * OpenSSL's own copy of the seed is cleansed when the key object is garbage collected.
 * Set PREFER_JWK_IMPORT to false to trade the 10x for wipeable import buffers.
 */
const PREFER_JWK_IMPORT = true;

function importPkcs8(seed: Uint8Array): KeyObject {
  const der = Buffer.from(new ArrayBuffer(ED25519_PKCS8_PREFIX.length + 32));
  try {
    ED25519_PKCS8_PREFIX.copy(der, 0);
    der.set(seed, ED25519_PKCS8_PREFIX.length);
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  } finally {
    der.fill(0);
  }
}

function importJwk(seed: Uint8Array): KeyObject {
  const d = Buffer.from(seed.buffer, seed.byteOffset, seed.byteLength).toString('base64url');
  return createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d, x: '' }, format: 'jwk' });
}

/** Uses the JWK import only if it yields exactly the key the PKCS#8 import does (RFC 8032 test 1). */
const importEd25519: (seed: Uint8Array) => KeyObject = (() => {
  if (!PREFER_JWK_IMPORT) return importPkcs8;
  try {
    const seed = Buffer.from('9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', 'hex');
    const expected = nodeSign(null, Buffer.alloc(0), importPkcs8(seed));
    return nodeSign(null, Buffer.alloc(0), importJwk(seed)).equals(expected) ? importJwk : importPkcs8;
  } catch {
    return importPkcs8;
  }
})();

function ed25519PrivateKey(seed: Uint8Array): KeyObject {
  if (seed.length !== 32) throw new Error('an Ed25519 seed must be 32 bytes');
  return importEd25519(seed);
}

/** Ed25519 (RFC 8032, deterministic) signature of `data` with a 32-byte seed, by Node's OpenSSL. */
export function ed25519Sign(seed: Uint8Array, data: Uint8Array): Buffer {
  return nodeSign(null, data, ed25519PrivateKey(seed));
}

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

/** The 32-byte public key of a seed, read back from the imported key (an SPKI export). */
export function ed25519PublicKey(seed: Uint8Array): Buffer {
  return spkiPublicKey(ed25519PrivateKey(seed));
}

function spkiPublicKey(key: KeyObject): Buffer {
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  if (spki.length !== ED25519_SPKI_PREFIX.length + 32 || !spki.subarray(0, ED25519_SPKI_PREFIX.length).equals(ED25519_SPKI_PREFIX)) {
    throw new Error('unexpected Ed25519 SPKI encoding');
  }
  return spki.subarray(ED25519_SPKI_PREFIX.length);
}

/** Strict Ed25519 verification (RFC 8032 by OpenSSL) of `signature` over `data` under a 32-byte public key. */
export function verifyEd25519(publicKey: Uint8Array, data: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  try {
    const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
    return nodeVerify(null, data, key, signature);
  } catch {
    return false;
  }
}
