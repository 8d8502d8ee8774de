/**
 * The wallet share migration envelope, `ECIES-P256-AES256-SHA256` (interface spec, "Wallet share
 * migration"):
 *
 * 1. Generate an ephemeral P-256 key pair.
 * 2. ECDH between the ephemeral private key and the enclave public key; the shared secret is the
 *    32-byte x coordinate of the shared point (what Node's `diffieHellman` / `ECDH.computeSecret`
 *    return).
 * 3. AES key = SHA-256(shared secret).
 * 4. AES-256-GCM with a random 12-byte IV and no associated data;
 *    `encryptedData` = base64(IV || ciphertext || 16-byte tag).
 * 5. Envelope = JSON `{ encryptedData, keyId, ephemeral, algorithm }` where `keyId` is the enclave
 *    key fingerprint (hex SHA-256 of its SPKI DER), `ephemeral` is base64 of the 65-byte
 *    uncompressed ephemeral point `0x04 || X || Y`, and `algorithm` is `ECIES-P256-AES256-SHA256`.
 *    The request field `encryptedPayload` is that JSON as a string, not a nested object.
 *
 * The plaintext is JSON `{ "shares": [{ userId, walletId, walletScheme, signer }] }`, `signer`
 * being the raw 32-byte signer secret as 64 hex characters without `0x`.
 *
 * Base64 is standard RFC 4648 base64 with padding, and must be canonical.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { z } from 'zod';
import type { Scheme } from '../custody/keys.ts';
import { wipe } from '../custody/types.ts';
import { invalidRequest } from '../errors.ts';
import { keyFingerprint } from './enclave-key.ts';

export const MIGRATION_ALGORITHM = 'ECIES-P256-AES256-SHA256';
/** Byte length (UTF-8) limit of the `encryptedPayload` string. */
export const MAX_MIGRATION_PAYLOAD_BYTES = 64 * 1024;

export interface MigrationShare {
  userId: string;
  walletId: string;
  walletScheme: Scheme;
  /** Raw signer secret, 64 lowercase hex characters (32 bytes), no `0x`. */
  signer: string;
}

const CURVE = 'prime256v1';
const IV_LENGTH = 12;
const TAG_LENGTH = 16;
const POINT_LENGTH = 65;
/** DER header of an SPKI P-256 public key with an uncompressed point; the 65-byte point follows. */
const P256_SPKI_PREFIX = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');
/** P-256 field prime and curve constant b (a = -3). */
const P256_P = 0xffffffff00000001000000000000000000000000ffffffffffffffffffffffffn;
const P256_B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

const DECRYPT_FAILED = 'Invalid encryptedPayload: could not decrypt: wrong key or tampered payload';

// ---------------------------------------------------------------------------------------------
// Shapes. Error texts are built from the issue code and path only, never from the input, so no
// plaintext value (above all `signer`) can end up in a message.

type RawIssue = z.core.$ZodRawIssue;

const missingOr = (phrase: string) => (issue: RawIssue) => (issue.input === undefined ? 'is required' : phrase);

function objectError(issue: RawIssue): string {
  if (issue.code === 'unrecognized_keys') {
    const keys = (issue.keys as string[]).slice(0, 5).map((key) => JSON.stringify(key.length > 40 ? `${key.slice(0, 40)}…` : key));
    return `has unknown field(s) ${keys.join(', ')}${issue.keys.length > 5 ? ', …' : ''}`;
  }
  return issue.input === undefined ? 'is required' : 'must be a JSON object';
}

const envelopeString = z.string({ error: missingOr('must be a string') });
const envelopeSchema = z.strictObject(
  { encryptedData: envelopeString, keyId: envelopeString, ephemeral: envelopeString, algorithm: envelopeString },
  { error: objectError },
);

const idString = z.string({ error: missingOr('must be a string') }).min(1, { error: 'must not be empty' });
const shareSchema = z.strictObject(
  {
    userId: idString,
    walletId: idString,
    walletScheme: z.enum(['DKLS', 'ED25519'], { error: missingOr('must be DKLS or ED25519') }),
    signer: z
      .string({ error: missingOr('must be a string') })
      .regex(/^[0-9a-fA-F]{64}$/, { error: 'must be 64 hex characters (the 32-byte signer secret, no 0x)' })
      .transform((hex) => hex.toLowerCase()),
  },
  { error: objectError },
);
const plaintextSchema = z.strictObject(
  {
    shares: z
      .array(shareSchema, { error: missingOr('must be an array') })
      .min(1, { error: 'must not be empty' }),
  },
  { error: objectError },
);

function pathLabel(root: string, path: PropertyKey[]): string {
  if (path.length === 0) return root;
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`)).join('');
}

function parseShape<S extends z.ZodType>(schema: S, input: unknown, root: string, prefix: string, toError: (message: string) => Error): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  throw toError(issue ? `${prefix}: ${pathLabel(root, issue.path)} ${issue.message}` : `${prefix}: ${root} is malformed`);
}

// ---------------------------------------------------------------------------------------------
// Helpers

/** Decodes canonical, padded RFC 4648 base64; undefined otherwise. */
function decodeBase64(text: string): Buffer | undefined {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

function sha256(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

function isP256(key: KeyObject): boolean {
  return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === CURVE;
}

const mod = (a: bigint) => ((a % P256_P) + P256_P) % P256_P;

/** True when `point` is 0x04 || X || Y with X, Y field elements satisfying y² = x³ − 3x + b. */
function isUncompressedP256Point(point: Uint8Array): boolean {
  if (point.length !== POINT_LENGTH || point[0] !== 0x04) return false;
  const x = BigInt(`0x${Buffer.from(point.subarray(1, 33)).toString('hex')}`);
  const y = BigInt(`0x${Buffer.from(point.subarray(33, 65)).toString('hex')}`);
  if (x >= P256_P || y >= P256_P) return false;
  return mod(y * y) === mod(x * x * x - 3n * x + P256_B);
}

function p256PublicKeyFromPoint(point: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([P256_SPKI_PREFIX, point]), format: 'der', type: 'spki' });
}

function uncompressedPoint(publicKey: KeyObject): Buffer {
  const der = publicKey.export({ type: 'spki', format: 'der' });
  if (der.length !== P256_SPKI_PREFIX.length + POINT_LENGTH || !der.subarray(0, P256_SPKI_PREFIX.length).equals(P256_SPKI_PREFIX)) {
    throw new Error('unexpected P-256 SPKI encoding');
  }
  return der.subarray(P256_SPKI_PREFIX.length);
}

// ---------------------------------------------------------------------------------------------
// Client half

/**
 * The client half: what a client library runs to migrate its pregenerated wallets. Returns the JSON
 * string to send as `encryptedPayload`. Throws a plain Error (never containing a signer) when the
 * key is not a P-256 public key or a share is malformed.
 */
export function encryptShareForMigration(publicKeyPem: string, shares: MigrationShare[]): string {
  const checked = parseShape(plaintextSchema, { shares }, 'plaintext', 'Cannot encrypt migration shares', (m) => new Error(m));
  let enclaveKey: KeyObject;
  try {
    enclaveKey = createPublicKey(publicKeyPem);
  } catch {
    throw new Error('Cannot encrypt migration shares: publicKeyPem is not a PEM public key');
  }
  if (!isP256(enclaveKey)) throw new Error('Cannot encrypt migration shares: the enclave key is not a P-256 key');

  const ephemeral = generateKeyPairSync('ec', { namedCurve: CURVE });
  const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: enclaveKey });
  const aesKey = sha256(shared);
  const plaintext = Buffer.from(JSON.stringify(checked), 'utf8');
  try {
    const iv = randomBytes(IV_LENGTH);
    const cipher = createCipheriv('aes-256-gcm', aesKey, iv, { authTagLength: TAG_LENGTH });
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    const tag = cipher.getAuthTag();
    return JSON.stringify({
      encryptedData: Buffer.concat([iv, ciphertext, tag]).toString('base64'),
      keyId: keyFingerprint(enclaveKey),
      ephemeral: uncompressedPoint(ephemeral.publicKey).toString('base64'),
      algorithm: MIGRATION_ALGORITHM,
    });
  } finally {
    wipe(shared, aesKey, plaintext);
  }
}

// ---------------------------------------------------------------------------------------------
// Server half

const bad = (message: string) => invalidRequest(`Invalid encryptedPayload: ${message}`);

/**
 * The server half: parses and decrypts `encryptedPayload`. Every failure caused by the payload is an
 * ApiError 400 INVALID_REQUEST with a message naming the problem and no secret in it. A bad
 * `enclave.privateKey` (not P-256) is a server fault and throws a plain Error.
 */
export function decryptMigrationPayload(
  encryptedPayload: unknown,
  enclave: { privateKey: KeyObject; keyId: string },
): MigrationShare[] {
  if (!isP256(enclave.privateKey) || enclave.privateKey.type !== 'private') {
    throw new Error('the enclave private key must be a P-256 private key');
  }

  if (typeof encryptedPayload !== 'string') {
    throw bad('must be a string holding the JSON envelope (not a nested object)');
  }
  if (encryptedPayload.length === 0) throw bad('must not be empty');
  if (Buffer.byteLength(encryptedPayload, 'utf8') > MAX_MIGRATION_PAYLOAD_BYTES) {
    throw bad(`is larger than ${MAX_MIGRATION_PAYLOAD_BYTES} bytes`);
  }

  let json: unknown;
  try {
    json = JSON.parse(encryptedPayload);
  } catch {
    throw bad('is not valid JSON');
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw bad('the envelope must be a JSON object');
  const envelope = parseShape(envelopeSchema, json, 'the envelope', 'Invalid encryptedPayload', invalidRequest);

  if (envelope.algorithm !== MIGRATION_ALGORITHM) throw bad(`algorithm must be ${MIGRATION_ALGORITHM}`);
  if (envelope.keyId !== enclave.keyId) {
    throw bad('keyId is not the current enclave key; fetch GET /v1/enclave/public-key and encrypt again');
  }

  const point = decodeBase64(envelope.ephemeral);
  if (!point) throw bad('ephemeral must be base64');
  if (point.length !== POINT_LENGTH || point[0] !== 0x04) {
    throw bad('ephemeral must be an uncompressed P-256 point (65 bytes starting 0x04); compressed points are not accepted');
  }
  if (!isUncompressedP256Point(point)) throw bad('ephemeral is not a point on P-256');
  let ephemeralKey: KeyObject;
  try {
    ephemeralKey = p256PublicKeyFromPoint(point);
  } catch {
    throw bad('ephemeral is not a point on P-256');
  }

  const data = decodeBase64(envelope.encryptedData);
  if (!data) throw bad('encryptedData must be base64');
  if (data.length < IV_LENGTH + TAG_LENGTH) {
    throw bad(`encryptedData is too short (at least ${IV_LENGTH + TAG_LENGTH} bytes: 12-byte IV, ciphertext, 16-byte tag)`);
  }

  let shared: Buffer | undefined;
  let aesKey: Buffer | undefined;
  let body: Buffer | undefined;
  let tail: Buffer | undefined;
  let plain: Buffer | undefined;
  let text: string;
  try {
    shared = diffieHellman({ privateKey: enclave.privateKey, publicKey: ephemeralKey });
    aesKey = sha256(shared);
    const decipher = createDecipheriv('aes-256-gcm', aesKey, data.subarray(0, IV_LENGTH), { authTagLength: TAG_LENGTH });
    decipher.setAuthTag(data.subarray(data.length - TAG_LENGTH));
    body = decipher.update(data.subarray(IV_LENGTH, data.length - TAG_LENGTH));
    tail = decipher.final();
    plain = Buffer.concat([body, tail]);
    text = plain.toString('utf8');
  } catch {
    throw invalidRequest(DECRYPT_FAILED);
  } finally {
    wipe(shared, aesKey, body, tail, plain);
  }

  let plaintext: unknown;
  try {
    plaintext = JSON.parse(text);
  } catch {
    throw bad('the decrypted plaintext is not valid JSON');
  }
  return parseShape(plaintextSchema, plaintext, 'the plaintext', 'Invalid encryptedPayload plaintext', invalidRequest).shares;
}
