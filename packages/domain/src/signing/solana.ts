/**
 * Solana signing (Ed25519, ED25519 wallets).
 *
 * | operation   | what is signed                                           | response                          |
 * | ----------- | -------------------------------------------------------- | --------------------------------- |
 * | message     | the raw UTF-8 bytes of the message (no envelope)         | `signature` (64 B hex, no 0x)     |
 * | raw         | exactly the given bytes                                  | `signature` (64 B hex, no 0x)     |
 * | transaction | the message bytes of a legacy or v0 wire transaction     | `signedTransaction` (base64 wire) |
 *
 * The Ed25519 signature itself is the wallet key's (`KeyMaterial.signEd25519`): where the key is
 * whole that is `ed25519Sign` of ed25519.ts, shared by the three Ed25519 chains.
 *
 * Transactions are decoded and re-encoded with @solana/kit: the wallet must be one of the required
 * signers (the first `numSignerAccounts` static account keys); its signature is placed in its own
 * slot, every other slot (present signature or empty) is kept as it was.
 *
 * `digest` (audit) is the SHA-256 of the signed bytes: the UTF-8 message, the raw bytes, or the
 * transaction's message bytes.
 */
import {
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type Address,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import { z } from 'zod';
import { invalidRequest } from '../errors.ts';
import { MAX_SIGN_PAYLOAD_BYTES, digestOf, hexToBytes, messageBody, rawBody } from './common.ts';
import type { ChainSigner, SignOperation } from './types.ts';

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

// ---------------------------------------------------------------------------------------------
// message / raw
// ---------------------------------------------------------------------------------------------

const message: SignOperation<typeof messageBody> = {
  body: messageBody,
  async sign(key, input) {
    const signature = await key.signEd25519(Buffer.from(input.message, 'utf8'));
    return { response: { signature: hex(signature) }, digest: digestOf(input.message), chainId: null };
  },
};

const raw: SignOperation<typeof rawBody> = {
  body: rawBody,
  async sign(key, input) {
    const bytes = hexToBytes(input.data);
    const signature = await key.signEd25519(bytes);
    return { response: { signature: hex(signature) }, digest: digestOf(bytes), chainId: null };
  },
};

// ---------------------------------------------------------------------------------------------
// transaction
// ---------------------------------------------------------------------------------------------

export const solanaNetworks = ['SOLANA', 'SOLANA_DEVNET', 'SOLANA_TESTNET'] as const;

/** Standard base64 with padding; at most MAX_SIGN_PAYLOAD_BYTES decoded bytes. */
const MAX_TRANSACTION_BASE64 = Math.ceil(MAX_SIGN_PAYLOAD_BYTES / 3) * 4;

export const solanaSignTransactionBody = z
  .strictObject({
    transaction: z
      .base64('must be the base64 of a serialized legacy or v0 transaction')
      .min(1)
      .max(MAX_TRANSACTION_BASE64)
      .describe('base64 wire transaction (legacy Transaction or v0 VersionedTransaction, auto-detected)'),
    network: z.enum(solanaNetworks).optional(),
    broadcast: z.boolean().optional().describe('true: also broadcast and record the signed transaction'),
  })
  .meta({ id: 'SolanaSignTransactionRequest' });

const UNDECODABLE = 'transaction is not a decodable Solana transaction (base64 of a legacy or v0 wire transaction)';

interface DecodedTransaction {
  transaction: Transaction;
  signers: readonly Address[];
}

function decodeTransaction(base64: string): DecodedTransaction {
  const wire = Buffer.from(base64, 'base64');
  let transaction: Transaction;
  let version: 'legacy' | number;
  let staticAccounts: readonly Address[];
  let numSignerAccounts: number;
  try {
    transaction = getTransactionDecoder().decode(wire);
    // The wire decoder takes every byte after the signatures as the message; decoding the
    // message must consume exactly those bytes, so trailing garbage is refused.
    const [compiled, end] = getCompiledTransactionMessageDecoder().read(transaction.messageBytes, 0);
    if (end !== transaction.messageBytes.length) throw new Error('trailing bytes');
    version = compiled.version;
    staticAccounts = compiled.staticAccounts;
    numSignerAccounts = compiled.header.numSignerAccounts;
  } catch {
    throw invalidRequest(UNDECODABLE);
  }
  if (version !== 'legacy' && version !== 0) {
    throw invalidRequest(`unsupported Solana transaction version ${version}; legacy and v0 are supported`);
  }
  const signers = staticAccounts.slice(0, numSignerAccounts);
  // One slot per required signer; a repeated signer key would collapse two slots into one.
  if (signers.length !== numSignerAccounts || Object.keys(transaction.signatures).length !== signers.length) {
    throw invalidRequest('transaction has duplicate or missing signer accounts');
  }
  return { transaction, signers };
}

const transaction: SignOperation<typeof solanaSignTransactionBody> = {
  body: solanaSignTransactionBody,
  async sign(key, input) {
    const { transaction: decoded, signers } = decodeTransaction(input.transaction);
    const wallet = key.address as Address;
    if (!signers.includes(wallet)) throw invalidRequest('wallet is not a required signer of this transaction');
    const { buffer, byteOffset, byteLength } = decoded.messageBytes;
    const messageBytes = new Uint8Array(buffer, byteOffset, byteLength); // a view, for node:crypto
    const signature = await key.signEd25519(messageBytes);
    // Spreading keeps the key order (= the signer order of the message); the wallet's slot is
    // replaced in place.
    const signed: Transaction = {
      messageBytes: decoded.messageBytes,
      signatures: { ...decoded.signatures, [wallet]: new Uint8Array(signature) as SignatureBytes },
    };
    const signedTransaction = Buffer.from(getTransactionEncoder().encode(signed)).toString('base64');
    return {
      response: { signedTransaction },
      digest: digestOf(messageBytes),
      chainId: input.network ?? null,
    };
  },
};

export const solanaSigner: ChainSigner = { message, raw, transaction };
