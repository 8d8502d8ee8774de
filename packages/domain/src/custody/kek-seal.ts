import { createCipheriv, createDecipheriv, randomFillSync } from 'node:crypto';
import type { Kek } from './shares.ts';

const IV_LENGTH = 12;
const TAG_LENGTH = 16;
const ALGORITHM = 'aes-256-gcm';

function assertKek(kek: Kek | undefined): asserts kek is Kek {
  if (!kek || kek.key.length !== 32) throw new Error('key-encryption key must be 32 bytes');
}

/**
 * AES-256-GCM under a key-encryption key with `associatedData` bound in: a random 12-byte IV and
 * the ciphertext followed by the 16-byte tag. Used for key shares and the enclave key.
 */
export function sealUnderKek(kek: Kek | undefined, associatedData: string, plaintext: Uint8Array): { iv: Uint8Array; ciphertext: Uint8Array } {
  assertKek(kek);
  const iv = randomFillSync(new Uint8Array(IV_LENGTH));
  const cipher = createCipheriv(ALGORITHM, kek.key, iv, { authTagLength: TAG_LENGTH });
  cipher.setAAD(Buffer.from(associatedData, 'utf8'));
  const body = cipher.update(plaintext);
  const tail = cipher.final();
  const tag = cipher.getAuthTag();
  const ciphertext = new Uint8Array(body.length + tail.length + TAG_LENGTH);
  ciphertext.set(body, 0);
  ciphertext.set(tail, body.length);
  ciphertext.set(tag, body.length + tail.length);
  body.fill(0);
  tail.fill(0);
  return { iv, ciphertext };
}

/** Opens what `sealUnderKek` sealed; throws on any failure (wrong KEK, AAD, IV or tampering). */
export function openUnderKek(kek: Kek | undefined, associatedData: string, iv: Uint8Array, ciphertext: Uint8Array): Uint8Array {
  assertKek(kek);
  if (iv.length !== IV_LENGTH || ciphertext.length < TAG_LENGTH) throw new Error('bad shape');
  const split = ciphertext.length - TAG_LENGTH;
  const decipher = createDecipheriv(ALGORITHM, kek.key, iv, { authTagLength: TAG_LENGTH });
  decipher.setAAD(Buffer.from(associatedData, 'utf8'));
  decipher.setAuthTag(ciphertext.subarray(split));
  const body = decipher.update(ciphertext.subarray(0, split));
  const tail = decipher.final();
  const plain = new Uint8Array(body.length + tail.length);
  plain.set(body, 0);
  plain.set(tail, body.length);
  body.fill(0);
  tail.fill(0);
  return plain;
}
