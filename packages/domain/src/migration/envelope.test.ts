import {
  createCipheriv,
  createDecipheriv,
  createECDH,
  createHash,
  createPublicKey,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { KekProvider } from '../custody/shares.ts';
import { ApiError } from '../errors.ts';
import { generateEnclaveKey, openEnclavePrivateKey } from './enclave-key-crypto.ts';
import {
  MAX_MIGRATION_PAYLOAD_BYTES,
  MIGRATION_ALGORITHM,
  decryptMigrationPayload,
  encryptShareForMigration,
  type MigrationShare,
} from './envelope.ts';

// --- Fixtures --------------------------------------------------------------------------------

const kek = { id: 'kek-test', key: randomBytes(32) };
const keks: KekProvider = { current: () => kek, byId: (id) => (id === kek.id ? kek : undefined) };
const record = generateEnclaveKey(keks, new Date());
const enclave = { privateKey: openEnclavePrivateKey(keks, record), keyId: record.id };
const pem = record.publicKeyPem;

const signer = randomBytes(32).toString('hex');
const share = (over: Partial<MigrationShare> = {}): MigrationShare => ({
  userId: 'wallet-1',
  walletId: 'wallet-1',
  walletScheme: 'DKLS',
  signer,
  ...over,
});

// --- The contract, written out from the spec with Node crypto (independent of envelope.ts) -----

/** The 65-byte uncompressed point inside a P-256 SPKI (a 26-byte DER header, then the point). */
function rawPoint(publicKeyPem: string): Buffer {
  const der = createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
  expect(der).toHaveLength(91);
  return der.subarray(26);
}

function fingerprint(publicKeyPem: string): string {
  return createHash('sha256').update(createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' })).digest('hex');
}

/**
 * Encrypts `plaintext` by the spec's words: ephemeral P-256 pair, ECDH with the enclave public key,
 * AES key = SHA-256(shared x coordinate), AES-256-GCM with a random 12-byte IV,
 * encryptedData = base64(IV || ciphertext || tag), ephemeral = base64(0x04 || X || Y).
 */
function sealByHand(publicKeyPem: string, plaintext: string | Buffer) {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  const shared = ecdh.computeSecret(rawPoint(publicKeyPem));
  expect(shared).toHaveLength(32);
  const aesKey = createHash('sha256').update(shared).digest();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', aesKey, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  const envelope = {
    encryptedData: Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64'),
    keyId: fingerprint(publicKeyPem),
    ephemeral: ecdh.getPublicKey(null, 'uncompressed').toString('base64'),
    algorithm: 'ECIES-P256-AES256-SHA256',
  };
  return { envelope, ecdh };
}

const sharesJson = (shares: unknown) => JSON.stringify({ shares });
const payload = (envelope: object) => JSON.stringify(envelope);
const decrypt = (encryptedPayload: unknown, key: { privateKey: KeyObject; keyId: string } = enclave) =>
  decryptMigrationPayload(encryptedPayload, key);

/** Runs `fn`, expects a 400 INVALID_REQUEST ApiError, and returns its message. */
const seen: string[] = [];
function expect400(fn: () => unknown, name: string, pattern?: RegExp): string {
  let error: unknown;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  expect(error, name).toBeInstanceOf(ApiError);
  const apiError = error as ApiError;
  expect(apiError.status, name).toBe(400);
  expect(apiError.code, name).toBe('INVALID_REQUEST');
  if (pattern) expect(apiError.message, name).toMatch(pattern);
  const body = JSON.stringify(apiError.toBody());
  expect(body, name).not.toContain(signer.slice(8, 40));
  seen.push(body, apiError.message);
  return apiError.message;
}

// --- Tests ------------------------------------------------------------------------------------

describe('migration envelope round trip', () => {
  it('migrates a DKLS share', () => {
    const encryptedPayload = encryptShareForMigration(pem, [share()]);
    expect(typeof encryptedPayload).toBe('string');
    expect(decrypt(encryptedPayload)).toEqual([share()]);
  });

  it('migrates an ED25519 share', () => {
    const s = share({ walletId: 'sol-1', userId: 'sol-1', walletScheme: 'ED25519', signer: randomBytes(32).toString('hex') });
    expect(decrypt(encryptShareForMigration(pem, [s]))).toEqual([s]);
  });

  it('carries several shares in order', () => {
    const shares = [share(), share({ walletId: 'w2', userId: 'w2', walletScheme: 'ED25519' })];
    expect(decrypt(encryptShareForMigration(pem, shares))).toEqual(shares);
  });

  it('normalises an upper-case signer to lower case', () => {
    expect(decrypt(encryptShareForMigration(pem, [share({ signer: signer.toUpperCase() })]))).toEqual([share()]);
  });

  it('uses a fresh ephemeral key and IV each time', () => {
    const a = JSON.parse(encryptShareForMigration(pem, [share()]));
    const b = JSON.parse(encryptShareForMigration(pem, [share()]));
    expect(a.ephemeral).not.toBe(b.ephemeral);
    expect(a.encryptedData.slice(0, 16)).not.toBe(b.encryptedData.slice(0, 16));
  });

  it('refuses malformed shares and non-P-256 keys on the client side without echoing the signer', () => {
    const bad: Array<[string, () => unknown]> = [
      ['0x signer', () => encryptShareForMigration(pem, [share({ signer: `0x${signer.slice(2)}` })])],
      ['short signer', () => encryptShareForMigration(pem, [share({ signer: signer.slice(2) })])],
      ['no shares', () => encryptShareForMigration(pem, [])],
      ['bad scheme', () => encryptShareForMigration(pem, [share({ walletScheme: 'SECP' as never })])],
      ['not a pem', () => encryptShareForMigration('nope', [share()])],
      ['ed25519 key', () => encryptShareForMigration(edPem(), [share()])],
    ];
    for (const [name, fn] of bad) {
      expect(fn, name).toThrowError(/^Cannot encrypt migration shares: /);
      try {
        fn();
      } catch (e) {
        expect((e as Error).message).not.toContain(signer.slice(2, 40));
      }
    }
  });
});

describe('migration envelope wire format', () => {
  it('decrypts an envelope built by hand from the spec', () => {
    const { envelope } = sealByHand(pem, sharesJson([share()]));
    expect(decrypt(payload(envelope))).toEqual([share()]);
  });

  it('produces exactly what the spec describes', () => {
    // Our own enclave key made with the ECDH API, so the test can decrypt without envelope.ts.
    const enclaveEcdh = createECDH('prime256v1');
    enclaveEcdh.generateKeys();
    const spki = Buffer.concat([Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex'), enclaveEcdh.getPublicKey()]);
    const testPem = createPublicKey({ key: spki, format: 'der', type: 'spki' }).export({ type: 'spki', format: 'pem' }).toString();

    const encryptedPayload = encryptShareForMigration(testPem, [share()]);
    const envelope = JSON.parse(encryptedPayload);
    expect(Object.keys(envelope).sort()).toEqual(['algorithm', 'encryptedData', 'ephemeral', 'keyId']);
    expect(envelope.algorithm).toBe('ECIES-P256-AES256-SHA256');
    expect(MIGRATION_ALGORITHM).toBe('ECIES-P256-AES256-SHA256');
    expect(envelope.keyId).toBe(createHash('sha256').update(spki).digest('hex'));

    const ephemeral = Buffer.from(envelope.ephemeral, 'base64');
    expect(ephemeral.toString('base64')).toBe(envelope.ephemeral);
    expect(ephemeral).toHaveLength(65);
    expect(ephemeral[0]).toBe(0x04);

    const data = Buffer.from(envelope.encryptedData, 'base64');
    const aesKey = createHash('sha256').update(enclaveEcdh.computeSecret(ephemeral)).digest();
    const decipher = createDecipheriv('aes-256-gcm', aesKey, data.subarray(0, 12));
    decipher.setAuthTag(data.subarray(data.length - 16));
    const plaintext = Buffer.concat([decipher.update(data.subarray(12, data.length - 16)), decipher.final()]).toString('utf8');
    expect(JSON.parse(plaintext)).toEqual({
      shares: [{ userId: 'wallet-1', walletId: 'wallet-1', walletScheme: 'DKLS', signer }],
    });
    expect(Object.keys(JSON.parse(plaintext).shares[0])).toEqual(['userId', 'walletId', 'walletScheme', 'signer']);
  });
});

describe('migration envelope refusals', () => {
  const good = () => sealByHand(pem, sharesJson([share()])).envelope;
  const withEnvelope = (over: Record<string, unknown>) => payload({ ...good(), ...over });

  it('refuses payloads that are not a non-empty string', () => {
    expect400(() => decrypt(good()), 'nested object', /must be a string holding the JSON envelope \(not a nested object\)/);
    for (const value of [undefined, null, 42, ['x'], Buffer.from('x')]) expect400(() => decrypt(value), String(value), /must be a string/);
    expect400(() => decrypt(''), 'empty', /must not be empty/);
  });

  it('refuses payloads over 64 KiB by UTF-8 byte length', () => {
    expect400(() => decrypt('x'.repeat(MAX_MIGRATION_PAYLOAD_BYTES + 1)), 'ascii', /larger than 65536 bytes/);
    // 40 000 characters but 80 000 bytes.
    expect400(() => decrypt('é'.repeat(40_000)), 'multi-byte', /larger than 65536 bytes/);
    // A valid envelope padded past the limit with whitespace is still refused by size.
    const padded = `${payload(good())}${' '.repeat(MAX_MIGRATION_PAYLOAD_BYTES)}`;
    expect400(() => decrypt(padded), 'padded', /larger than/);
    // At the limit the size check passes (and the next check answers).
    expect400(() => decrypt('x'.repeat(MAX_MIGRATION_PAYLOAD_BYTES)), 'at limit', /not valid JSON/);
  });

  it('refuses non-JSON and non-object envelopes', () => {
    expect400(() => decrypt('not json'), 'garbage', /not valid JSON/);
    expect400(() => decrypt('{"encryptedData":'), 'truncated', /not valid JSON/);
    for (const json of ['null', '[]', '"x"', '12', 'true', JSON.stringify(payload(good()))]) {
      expect400(() => decrypt(json), json.slice(0, 20), /the envelope must be a JSON object/);
    }
  });

  it('refuses unknown, missing and mistyped envelope fields', () => {
    expect400(() => decrypt(withEnvelope({ extra: 1 })), 'unknown', /the envelope has unknown field\(s\) "extra"/);
    for (const field of ['encryptedData', 'keyId', 'ephemeral', 'algorithm']) {
      const { [field as keyof ReturnType<typeof good>]: _dropped, ...rest } = good();
      expect400(() => decrypt(payload(rest)), `missing ${field}`, new RegExp(`${field} is required`));
      expect400(() => decrypt(withEnvelope({ [field]: 1 })), `number ${field}`, new RegExp(`${field} must be a string`));
    }
  });

  it('refuses another algorithm', () => {
    for (const algorithm of ['ECIES-P256-AES128-SHA256', 'ecies-p256-aes256-sha256', '']) {
      expect400(() => decrypt(withEnvelope({ algorithm })), algorithm, /algorithm must be ECIES-P256-AES256-SHA256/);
    }
  });

  it('refuses a keyId other than the current enclave key', () => {
    expect400(() => decrypt(withEnvelope({ keyId: 'f'.repeat(64) })), 'other id', /keyId is not the current enclave key/);
    expect400(() => decrypt(withEnvelope({ keyId: record.id.toUpperCase() })), 'upper case', /keyId/);
    // Encrypted to an older enclave key: the client must fetch the current key again.
    const old = generateEnclaveKey(keks, new Date());
    expect400(() => decrypt(encryptShareForMigration(old.publicKeyPem, [share()])), 'old key', /keyId is not the current enclave key/);
  });

  it('refuses ephemeral points that are not uncompressed P-256 points', () => {
    const { ecdh } = sealByHand(pem, '{}');
    const uncompressed = ecdh.getPublicKey(null, 'uncompressed');
    const compressed = ecdh.getPublicKey(null, 'compressed');
    const hybrid = ecdh.getPublicKey(null, 'hybrid');
    expect(compressed).toHaveLength(33);

    const notAPoint = /ephemeral must be an uncompressed P-256 point \(65 bytes starting 0x04\)/;
    expect400(() => decrypt(withEnvelope({ ephemeral: compressed.toString('base64') })), 'compressed', notAPoint);
    expect400(() => decrypt(withEnvelope({ ephemeral: uncompressed.subarray(1).toString('base64') })), '64 bytes', notAPoint);
    expect400(() => decrypt(withEnvelope({ ephemeral: Buffer.concat([uncompressed, Buffer.from([0])]).toString('base64') })), '66 bytes', notAPoint);
    expect400(() => decrypt(withEnvelope({ ephemeral: hybrid.toString('base64') })), 'hybrid 0x06/0x07', notAPoint);
    expect400(() => decrypt(withEnvelope({ ephemeral: '' })), 'empty', notAPoint);

    const offCurve = Buffer.from(uncompressed);
    offCurve[64] = offCurve[64]! ^ 0x01;
    expect400(() => decrypt(withEnvelope({ ephemeral: offCurve.toString('base64') })), 'off curve', /ephemeral is not a point on P-256/);
    const zero = Buffer.concat([Buffer.from([4]), Buffer.alloc(64)]);
    expect400(() => decrypt(withEnvelope({ ephemeral: zero.toString('base64') })), 'zeros', /ephemeral is not a point on P-256/);
    const big = Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 0xff)]);
    expect400(() => decrypt(withEnvelope({ ephemeral: big.toString('base64') })), 'x, y >= p', /ephemeral is not a point on P-256/);

    expect400(() => decrypt(withEnvelope({ ephemeral: uncompressed.toString('hex') })), 'hex', /ephemeral must be base64/);
    expect400(() => decrypt(withEnvelope({ ephemeral: uncompressed.toString('base64url') })), 'base64url', /ephemeral must be base64/);
    expect400(() => decrypt(withEnvelope({ ephemeral: uncompressed.toString('base64').replace(/=+$/, '') })), 'unpadded', /ephemeral must be base64/);
  });

  it('refuses encryptedData that is not base64 or too short', () => {
    expect400(() => decrypt(withEnvelope({ encryptedData: '***' })), 'not base64', /encryptedData must be base64/);
    expect400(() => decrypt(withEnvelope({ encryptedData: randomBytes(27).toString('base64') })), '27 bytes', /encryptedData is too short/);
    expect400(() => decrypt(withEnvelope({ encryptedData: '' })), 'empty', /encryptedData is too short/);
  });

  it('refuses a tampered byte anywhere in encryptedData', () => {
    const envelope = good();
    const data = Buffer.from(envelope.encryptedData, 'base64');
    for (const index of [0, 11, 12, Math.floor(data.length / 2), data.length - 17, data.length - 16, data.length - 1]) {
      const tampered = Buffer.from(data);
      tampered[index] = tampered[index]! ^ 0x80;
      expect400(
        () => decrypt(payload({ ...envelope, encryptedData: tampered.toString('base64') })),
        `byte ${index}`,
        /could not decrypt: wrong key or tampered payload/,
      );
    }
    expect400(
      () => decrypt(payload({ ...envelope, encryptedData: data.subarray(0, data.length - 1).toString('base64') })),
      'truncated tag',
      /could not decrypt: wrong key or tampered payload/,
    );
  });

  it('refuses a valid point that is not the ephemeral key used, and a wrong enclave private key', () => {
    const envelope = good();
    expect400(() => decrypt(payload({ ...envelope, ephemeral: good().ephemeral })), 'swapped ephemeral', /could not decrypt/);
    const other = generateEnclaveKey(keks, new Date());
    expect400(
      () => decrypt(payload(envelope), { privateKey: openEnclavePrivateKey(keks, other), keyId: record.id }),
      'wrong private key',
      /could not decrypt: wrong key or tampered payload/,
    );
  });

  it('refuses plaintexts that are not the shares JSON', () => {
    const sealed = (plaintext: string) => payload(sealByHand(pem, plaintext).envelope);
    const cases: Array<[string, string, RegExp]> = [
      ['not JSON', `shares: ${signer}`, /the decrypted plaintext is not valid JSON/],
      ['empty plaintext', '', /the decrypted plaintext is not valid JSON/],
      ['array root', JSON.stringify([share()]), /the plaintext must be a JSON object/],
      ['no shares', '{}', /shares is required/],
      ['extra root field', JSON.stringify({ shares: [share()], version: 1 }), /the plaintext has unknown field\(s\) "version"/],
      ['shares object', JSON.stringify({ shares: share() }), /shares must be an array/],
      ['empty shares', sharesJson([]), /shares must not be empty/],
      ['share not object', sharesJson([signer]), /shares\[0\] must be a JSON object/],
      ['extra share field', sharesJson([{ ...share(), secret: true }]), /shares\[0\] has unknown field\(s\) "secret"/],
      ['missing signer', sharesJson([{ userId: 'w', walletId: 'w', walletScheme: 'DKLS' }]), /shares\[0\]\.signer is required/],
      ['missing userId', sharesJson([{ walletId: 'w', walletScheme: 'DKLS', signer }]), /shares\[0\]\.userId is required/],
      ['empty walletId', sharesJson([share({ walletId: '' })]), /shares\[0\]\.walletId must not be empty/],
      ['numeric walletId', sharesJson([{ ...share(), walletId: 7 }]), /shares\[0\]\.walletId must be a string/],
      ['missing scheme', sharesJson([{ userId: 'w', walletId: 'w', signer }]), /shares\[0\]\.walletScheme is required/],
      ['bad scheme', sharesJson([share({ walletScheme: 'secp256k1' as never })]), /shares\[0\]\.walletScheme must be DKLS or ED25519/],
      ['0x signer', sharesJson([share({ signer: `0x${signer}` })]), /shares\[0\]\.signer must be 64 hex characters/],
      ['short signer', sharesJson([share({ signer: signer.slice(0, 62) })]), /signer must be 64 hex characters/],
      ['long signer', sharesJson([share({ signer: `${signer}00` })]), /signer must be 64 hex characters/],
      ['non-hex signer', sharesJson([share({ signer: `${signer.slice(0, 63)}g` })]), /signer must be 64 hex characters/],
      ['numeric signer', sharesJson([{ ...share(), signer: 1 }]), /signer must be a string/],
      ['second share bad', sharesJson([share(), share({ signer: 'ab' })]), /shares\[1\]\.signer must be 64 hex/],
    ];
    for (const [name, plaintext, pattern] of cases) expect400(() => decrypt(sealed(plaintext)), name, pattern);
  });

  it('never puts the signer into an error message', () => {
    expect(seen.length).toBeGreaterThan(40);
    const needle = signer.slice(8, 40);
    for (const text of seen) {
      expect(text).not.toContain(needle);
      expect(text).not.toContain(needle.toUpperCase());
    }
  });

  it('throws a plain error (a server fault) for a non-P-256 enclave private key', () => {
    const { envelope } = sealByHand(pem, sharesJson([share()]));
    const ed = edPrivate();
    expect(() => decrypt(payload(envelope), { privateKey: ed, keyId: record.id })).toThrowError(/P-256 private key/);
    expect(() => decrypt(payload(envelope), { privateKey: createPublicKey(pem), keyId: record.id })).toThrowError(/P-256 private key/);
  });
});

function edPem(): string {
  return generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
}
function edPrivate(): KeyObject {
  return generateKeyPairSync('x25519').privateKey;
}
