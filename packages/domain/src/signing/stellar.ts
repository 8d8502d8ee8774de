/**
 * STELLAR signing (Ed25519, the wallet's `ED25519` key; the address is the `G...` StrKey).
 *
 * - message: Ed25519 over the raw UTF-8 bytes (no SEP-53 envelope); `{ signature }` = 64 bytes as
 *   hex without `0x`. Verifies with `Keypair.fromPublicKey(address).verify(bytes, signature)`.
 * - raw: Ed25519 over the exact bytes; same response.
 * - transaction: `{ transaction, networkPassphrase, broadcast? }`. The base64 XDR envelope
 *   (`Transaction` v0/v1 or `FeeBumpTransaction`) is parsed with the SDK for the given passphrase,
 *   the transaction hash (SHA-256 of the signature base, which contains the network id) is signed
 *   and a `DecoratedSignature` (hint = last 4 bytes of the public key) is appended; signatures
 *   already present are kept, and re-signing an envelope that already carries our signature does
 *   not add a duplicate. Response `{ signedTransaction }` (base64 XDR). Sign-only:
 *   `broadcast: true` is rejected (schema and `sign`). A wrong passphrase is not detectable: the
 *   signature is then valid only on that other network.
 * - no typed-data or authorization operation.
 *
 * `digest`: hex SHA-256 of the signed bytes; for a transaction that is the Stellar transaction
 * hash itself. `chainId`: `stellar:mainnet` / `stellar:testnet` / `stellar:futurenet` for the
 * well-known passphrases, otherwise null (a private network has no spec'd id); null for message
 * and raw.
 */
import { createPrivateKey, createPublicKey, sign as nodeSign, type KeyObject } from 'node:crypto';
import { Networks, TransactionBuilder, xdr, type FeeBumpTransaction, type Transaction } from '@stellar/stellar-sdk';
import { z } from 'zod';
import { invalidRequest } from '../errors.ts';
import { digestOf, hexToBytes, messageBody, rawBody } from './common.ts';
import type { ChainSigner, KeyMaterial, SignOperation } from './types.ts';

// ---------------------------------------------------------------------------------------------
// Ed25519 (shared with sui.ts)
// ---------------------------------------------------------------------------------------------

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

/**
 * Ed25519 signature plus the 32-byte public key of the seed, read from the imported key (an SPKI
 * DER export, ~80 us, about 5x cheaper here than computing the point with @noble/curves, which is
 * what the lazy `KeyMaterial.publicKey` of the signing service does).
 */
export function ed25519SignWithPublicKey(seed: Uint8Array, data: Uint8Array): { signature: Buffer; publicKey: Buffer } {
  const key = ed25519PrivateKey(seed);
  const signature = nodeSign(null, data, key);
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  if (spki.length !== ED25519_SPKI_PREFIX.length + 32 || !spki.subarray(0, ED25519_SPKI_PREFIX.length).equals(ED25519_SPKI_PREFIX)) {
    throw new Error('unexpected Ed25519 SPKI encoding');
  }
  return { signature, publicKey: spki.subarray(ED25519_SPKI_PREFIX.length) };
}

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const BROADCAST_UNSUPPORTED = 'Stellar transactions are signed only; broadcast is not supported';

/** Largest accepted transaction, in base64 characters (128 KiB of XDR). */
export const MAX_TRANSACTION_BASE64_LENGTH = 4 * Math.ceil((128 * 1024) / 3);

export const stellarTransactionBody = z
  .strictObject({
    transaction: z
      .base64()
      .min(1)
      .max(MAX_TRANSACTION_BASE64_LENGTH)
      .describe('Base64 XDR TransactionEnvelope (Transaction or FeeBumpTransaction)'),
    networkPassphrase: z.string().min(1).max(256).describe('The exact network passphrase the transaction was built for'),
    broadcast: z.boolean().optional().describe('Must be absent or false: Stellar transactions are signed only'),
  })
  .refine((body) => body.broadcast !== true, { message: BROADCAST_UNSUPPORTED, path: ['broadcast'] })
  .meta({ id: 'StellarSignTransactionRequest' });

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

function signBytes(key: KeyMaterial, bytes: Uint8Array) {
  return {
    response: { signature: ed25519Sign(key.secret, bytes).toString('hex') },
    digest: digestOf(bytes),
    chainId: null,
  };
}

const message: SignOperation<typeof messageBody> = {
  body: messageBody,
  async sign(key, input) {
    return signBytes(key, Buffer.from(input.message, 'utf8'));
  },
};

const raw: SignOperation<typeof rawBody> = {
  body: rawBody,
  async sign(key, input) {
    return signBytes(key, hexToBytes(input.data));
  },
};

const CHAIN_IDS = new Map<string, string>([
  [Networks.PUBLIC, 'stellar:mainnet'],
  [Networks.TESTNET, 'stellar:testnet'],
  [Networks.FUTURENET, 'stellar:futurenet'],
]);

const transaction: SignOperation<typeof stellarTransactionBody> = {
  body: stellarTransactionBody,
  async sign(key, input) {
    if (input.broadcast === true) throw invalidRequest(BROADCAST_UNSUPPORTED);
    let tx: Transaction | FeeBumpTransaction;
    try {
      tx = TransactionBuilder.fromXDR(input.transaction, input.networkPassphrase);
    } catch {
      throw invalidRequest('transaction is not a base64 XDR Stellar transaction envelope');
    }
    const hash = tx.hash();
    const { signature, publicKey } = ed25519SignWithPublicKey(key.secret, hash);
    const hint = publicKey.subarray(publicKey.length - 4); // = Keypair.signatureHint()
    const duplicate = tx.signatures.some((s) => s.hint().equals(hint) && s.signature().equals(signature));
    if (!duplicate) tx.addDecoratedSignature(new xdr.DecoratedSignature({ hint, signature }));
    let signedTransaction: string;
    try {
      signedTransaction = tx.toXDR();
    } catch {
      // The envelope holds at most 20 signatures.
      throw invalidRequest('the transaction cannot take another signature (at most 20 per envelope)');
    }
    return {
      response: { signedTransaction },
      digest: hash.toString('hex'),
      chainId: CHAIN_IDS.get(input.networkPassphrase) ?? null,
    };
  },
};

export const stellarSigner: ChainSigner = { message, raw, transaction };
