/**
 * COSMOS signing (secp256k1, the wallet's `DKLS` key).
 *
 * - message: the raw UTF-8 bytes of the message (no ADR-36 document, no transaction envelope) are
 *   hashed with SHA-256 and signed with secp256k1. Response `{ signature }`: hex without `0x` of
 *   the 64-byte compact `r || s` with low S, the form Cosmos SDK chains and cosmjs verify
 *   (`Secp256k1Signature.fromFixedLength` + `Secp256k1.verifySignature(sig, sha256(bytes), pubkey)`).
 * - raw: the exact sign bytes given as hex (a serialized `SignDoc`, direct or amino JSON), hashed
 *   with SHA-256 (the hash that is part of the Cosmos signature scheme, not an extra envelope)
 *   and signed the same way. This is how Cosmos transactions are signed: the caller builds the
 *   sign bytes, we return the signature that goes into `TxRaw.signatures`.
 * - no transaction, typed-data or authorization operation (capability matrix: "no").
 *
 * The audit `digest` is the hex SHA-256 of the signed bytes, i.e. exactly the ECDSA message hash.
 *
 * The message is hashed by Node's SHA-256 and signed by the one secp256k1 signer (./secp256k1.ts).
 */
import { createHash } from 'node:crypto';
import { hexToBytes, messageBody, rawBody } from './common.ts';
import type { ChainSigner, KeyMaterial, SignOperation } from './types.ts';

/** SHA-256 of `bytes` signed with secp256k1: compact 64-byte r || s, low S, as lowercase hex. */
async function signSha256(key: KeyMaterial, bytes: Uint8Array) {
  const hash = createHash('sha256').update(bytes).digest();
  const { signature } = await key.signDigest(hash);
  return {
    response: { signature: Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength).toString('hex') },
    digest: hash.toString('hex'),
    chainId: null,
  };
}

const message: SignOperation<typeof messageBody> = {
  body: messageBody,
  async sign(key, input) {
    return signSha256(key, Buffer.from(input.message, 'utf8'));
  },
};

const raw: SignOperation<typeof rawBody> = {
  body: rawBody,
  async sign(key, input) {
    return signSha256(key, hexToBytes(input.data));
  },
};

export const cosmosSigner: ChainSigner = { message, raw };
