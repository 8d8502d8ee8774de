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
 * Speed: @noble/curves 2 with the message hashed by Node's SHA-256 (`prehash: false`). The base
 * point table is widened from the library's default window of 6 bits to 8 bits (lazily built on
 * the first signature, about 1 MB): about 30% more signatures per second on the target machine.
 * This is a process-wide setting of the @noble/curves secp256k1 module; it changes only speed,
 * never results. Node's own ECDSA is slower here because every call has to import the key
 * through OpenSSL's PKCS#8/SEC1 decoder.
 */
import { createHash } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { hexToBytes, messageBody, rawBody } from './common.ts';
import type { ChainSigner, KeyMaterial, SignOperation } from './types.ts';

secp256k1.Point.BASE.precompute(8);

/** SHA-256 of `bytes` signed with secp256k1: compact 64-byte r || s, low S, as lowercase hex. */
function signSha256(key: KeyMaterial, bytes: Uint8Array) {
  const hash = createHash('sha256').update(bytes).digest();
  const signature = secp256k1.sign(hash, key.secret, { prehash: false, lowS: true, format: 'compact' });
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
