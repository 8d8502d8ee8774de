/**
 * SUI signing (Ed25519, the wallet's `ED25519` key; address = blake2b-256(0x00 || key)).
 *
 * - message: a Sui PersonalMessage intent signature, byte-identical to
 *   `Ed25519Keypair.signPersonalMessage(bytes)` of @mysten/sui: Ed25519 over
 *   blake2b-256([3, 0, 0] || bcs vector<u8>(message)). Response `{ signature }`: the base64
 *   serialized Sui signature `0x00 (Ed25519 flag) || signature (64) || public key (32)`, which
 *   `verifyPersonalMessageSignature` of @mysten/sui/verify accepts.
 * - raw: Ed25519 over the exact bytes (chain-agnostic sign-raw rule, no intent, no hashing);
 *   `{ signature }` = the 64 bytes as hex without `0x`.
 * - transaction: `{ transaction, networkPassphrase? (ignored), broadcast? }`. `transaction` is the
 *   base64 BCS of a `TransactionData`; it must decode as one and re-encode to the same bytes
 *   (no trailing or non-canonical bytes). The TransactionData intent
 *   blake2b-256([0, 0, 0] || bytes) is signed, as `keypair.signTransaction(bytes)`. Response
 *   `{ signature, transaction }`: the base64 serialized Sui signature and the unchanged input.
 *   Sign-only: `broadcast: true` is rejected (schema and `sign`).
 * - no typed-data or authorization operation.
 *
 * `digest`: hex SHA-256 of the message bytes / raw bytes / TransactionData bytes. `chainId`:
 * null (TransactionData does not name its network).
 *
 * Speed: the intent digest is computed here and signed by the wallet's key (`KeyMaterial`) instead
 * of the SDK's noble-based keypair; the tests prove the SDK verifies the result. The public key of
 * the serialized signature is asked of the key once per wallet and kept in a small address-checked
 * cache.
 */
import { bcs } from '@mysten/sui/bcs';
import { blake2b } from '@noble/hashes/blake2.js';
import { z } from 'zod';
import { invalidRequest } from '../errors.ts';
import { digestOf, hexToBytes, messageBody, rawBody } from './common.ts';
import { MAX_TRANSACTION_BASE64_LENGTH } from './stellar.ts';
import type { ChainSigner, KeyMaterial, SignOperation } from './types.ts';

const ED25519_FLAG = 0x00;

/** Intent prefixes `[scope, version V0, app id Sui]`. */
const TRANSACTION_DATA_INTENT = Uint8Array.of(0, 0, 0);
const PERSONAL_MESSAGE_INTENT = Uint8Array.of(3, 0, 0);

const BROADCAST_UNSUPPORTED = 'Sui transactions are signed only; broadcast is not supported';

export const suiTransactionBody = z
  .strictObject({
    transaction: z
      .base64()
      .min(1)
      .max(MAX_TRANSACTION_BASE64_LENGTH)
      .describe('Base64 BCS-serialized TransactionData'),
    networkPassphrase: z.string().max(256).optional().describe('Ignored for Sui'),
    broadcast: z.boolean().optional().describe('Must be absent or false: Sui transactions are signed only'),
  })
  .refine((body) => body.broadcast !== true, { message: BROADCAST_UNSUPPORTED, path: ['broadcast'] })
  .meta({ id: 'SuiSignTransactionRequest' });

/** ULEB128 length prefix of a BCS vector. */
function uleb128(value: number): Uint8Array {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value !== 0) byte |= 0x80;
    out.push(byte);
  } while (value !== 0);
  return Uint8Array.from(out);
}

/**
 * Public keys of recently used wallets, by Sui address (public data only). Reading the key back
 * from OpenSSL (an SPKI export, ~80 us) costs about as much as the import and signature together;
 * an entry is stored only after checking that the address is blake2b-256(0x00 || key), so a hit
 * is always the wallet's own key. Oldest entries are evicted first.
 */
const PUBLIC_KEY_CACHE_SIZE = 10_000;
const publicKeys = new Map<string, Buffer>();

function suiAddress(publicKey: Uint8Array): string {
  const hasher = blake2b.create({ dkLen: 32 });
  hasher.update(Uint8Array.of(ED25519_FLAG));
  hasher.update(publicKey);
  return `0x${Buffer.from(hasher.digest()).toString('hex')}`;
}

function rememberPublicKey(address: string, publicKey: Buffer): void {
  if (suiAddress(publicKey) !== address.toLowerCase()) return;
  if (publicKeys.size >= PUBLIC_KEY_CACHE_SIZE) publicKeys.delete(publicKeys.keys().next().value!);
  publicKeys.set(address.toLowerCase(), Buffer.from(publicKey));
}

/** Serialized Sui signature (flag || signature || public key) of the intent message, base64. */
async function signIntent(key: KeyMaterial, ...parts: Uint8Array[]): Promise<string> {
  const hasher = blake2b.create({ dkLen: 32 });
  for (const part of parts) hasher.update(part);
  const digest = hasher.digest();
  // The public key comes from the key (or the checked cache), never from the request.
  let publicKey = publicKeys.get(key.address.toLowerCase());
  if (!publicKey) {
    publicKey = Buffer.from(key.publicKey);
    rememberPublicKey(key.address, publicKey);
  }
  const signature = await key.signEd25519(digest);
  const serialized = Buffer.allocUnsafe(1 + 64 + 32);
  serialized[0] = ED25519_FLAG;
  serialized.set(signature, 1);
  publicKey.copy(serialized, 65);
  return serialized.toString('base64');
}

const message: SignOperation<typeof messageBody> = {
  body: messageBody,
  async sign(key, input) {
    const bytes = Buffer.from(input.message, 'utf8');
    return {
      response: { signature: await signIntent(key, PERSONAL_MESSAGE_INTENT, uleb128(bytes.length), bytes) },
      digest: digestOf(bytes),
      chainId: null,
    };
  },
};

const raw: SignOperation<typeof rawBody> = {
  body: rawBody,
  async sign(key, input) {
    const bytes = hexToBytes(input.data);
    return {
      response: { signature: Buffer.from(await key.signEd25519(bytes)).toString('hex') },
      digest: digestOf(bytes),
      chainId: null,
    };
  },
};

/** True when `bytes` is exactly one canonical BCS TransactionData. */
function isTransactionData(bytes: Uint8Array): boolean {
  try {
    const reencoded = bcs.TransactionData.serialize(bcs.TransactionData.parse(bytes)).toBytes();
    return Buffer.from(reencoded).equals(bytes);
  } catch {
    return false;
  }
}

const transaction: SignOperation<typeof suiTransactionBody> = {
  body: suiTransactionBody,
  async sign(key, input) {
    if (input.broadcast === true) throw invalidRequest(BROADCAST_UNSUPPORTED);
    const bytes = Buffer.from(input.transaction, 'base64');
    if (bytes.length === 0 || !isTransactionData(bytes)) {
      throw invalidRequest('transaction is not a base64 BCS-serialized Sui TransactionData');
    }
    return {
      response: { signature: await signIntent(key, TRANSACTION_DATA_INTENT, bytes), transaction: input.transaction },
      digest: digestOf(bytes),
      chainId: null,
    };
  },
};

export const suiSigner: ChainSigner = { message, raw, transaction };
