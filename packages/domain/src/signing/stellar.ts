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
 *   already present are kept, and re-signing an envelope that already carries a valid signature of
 *   this key (found by verifying, since signatures may be randomized) does not add a second one. Response `{ signedTransaction }` (base64 XDR). Sign-only:
 *   `broadcast: true` is rejected (schema and `sign`). A wrong passphrase is not detectable: the
 *   signature is then valid only on that other network.
 * - no typed-data or authorization operation.
 *
 * `digest`: hex SHA-256 of the signed bytes; for a transaction that is the Stellar transaction
 * hash itself. `chainId`: `stellar:mainnet` / `stellar:testnet` / `stellar:futurenet` for the
 * well-known passphrases, otherwise null (a private network has no spec'd id); null for message
 * and raw.
 */
import type { FeeBumpTransaction, Transaction } from '@stellar/stellar-sdk';
import { z } from 'zod';
import { invalidRequest } from '../errors.ts';
import { digestOf, hexToBytes, messageBody, rawBody } from './common.ts';
import type { ChainSigner, KeyMaterial, SignOperation } from './types.ts';
import { verifyEd25519 } from './ed25519.ts';

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

async function signBytes(key: KeyMaterial, bytes: Uint8Array) {
  return {
    response: { signature: Buffer.from(await key.signEd25519(bytes)).toString('hex') },
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

/** The SDK's Networks.PUBLIC, TESTNET and FUTURENET passphrases, and their chainId form. */
export const stellarChainIds: ReadonlyMap<string, string> = new Map<string, string>([
  ['Public Global Stellar Network ; September 2015', 'stellar:mainnet'],
  ['Test SDF Network ; September 2015', 'stellar:testnet'],
  ['Test SDF Future Network ; October 2022', 'stellar:futurenet'],
]);

const transaction: SignOperation<typeof stellarTransactionBody> = {
  body: stellarTransactionBody,
  async sign(key, input) {
    if (input.broadcast === true) throw invalidRequest(BROADCAST_UNSUPPORTED);
    // The SDK (tens of MB) loads with the first Stellar transaction, not with the process.
    const { TransactionBuilder, xdr } = await import('@stellar/stellar-sdk');
    let tx: Transaction | FeeBumpTransaction;
    try {
      tx = TransactionBuilder.fromXDR(input.transaction, input.networkPassphrase);
    } catch {
      throw invalidRequest('transaction is not a base64 XDR Stellar transaction envelope');
    }
    const hash = tx.hash();
    const publicKey = key.publicKey;
    const hint = Buffer.from(publicKey.subarray(publicKey.length - 4)); // = Keypair.signatureHint()
    // Signatures are not assumed deterministic (a threshold key randomizes them): an envelope already
    // signed by this key is one holding a signature with its hint that verifies under it.
    const duplicate = tx.signatures.some((s) => s.hint().equals(hint) && verifyEd25519(publicKey, hash, s.signature()));
    if (!duplicate) tx.addDecoratedSignature(new xdr.DecoratedSignature({ hint, signature: Buffer.from(await key.signEd25519(hash)) }));
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
      chainId: stellarChainIds.get(input.networkPassphrase) ?? null,
    };
  },
};

export const stellarSigner: ChainSigner = { message, raw, transaction };
