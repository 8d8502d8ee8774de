import { encodeSecp256k1Pubkey, makeSignDoc, pubkeyToAddress, serializeSignDoc, type StdFee } from '@cosmjs/amino';
import { ExtendedSecp256k1Signature, Secp256k1, Secp256k1Signature, sha256 } from '@cosmjs/crypto';
import { toHex } from '@cosmjs/encoding';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { parseInput } from '../shared/zod.ts';
import { cosmosSigner } from './cosmos.ts';
import { keyMaterial } from './testing.ts';
import type { KeyMaterial } from './types.ts';

const cosmosKey = (prefix?: string) => keyMaterial('COSMOS', undefined, prefix);

/** Half the secp256k1 group order: a low-S signature has s <= this. */
const HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n;

function expectLowS(signatureHex: string) {
  expect(signatureHex).toMatch(/^[0-9a-f]{128}$/);
  expect(BigInt(`0x${signatureHex.slice(64)}`) <= HALF_N).toBe(true);
}

async function signMessage(key: KeyMaterial, body: unknown) {
  return cosmosSigner.message.sign(key, parseInput(cosmosSigner.message.body, body));
}

async function signRaw(key: KeyMaterial, body: unknown) {
  return cosmosSigner.raw.sign(key, parseInput(cosmosSigner.raw.body, body));
}

function expect400(run: () => unknown) {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(400);
    expect((error as ApiError).code).toBe('INVALID_REQUEST');
    return;
  }
  throw new Error('expected a 400 ApiError');
}

describe('cosmosSigner', () => {
  it('has only message and raw operations (capability matrix)', () => {
    expect(cosmosSigner.transaction).toBeUndefined();
    expect(cosmosSigner.typedData).toBeUndefined();
    expect(cosmosSigner.authorization).toBeUndefined();
  });

  it('sign-message: secp256k1 over SHA-256 of the raw UTF-8 bytes, verified by cosmjs', async () => {
    for (let i = 0; i < 40; i++) {
      const key = cosmosKey();
      const message = `Hello Cosmos #${i} — ünïcødé ✓`;
      const bytes = new TextEncoder().encode(message);
      const { response, digest, chainId } = await signMessage(key, { message });
      const signature = response.signature as string;
      expect(Object.keys(response)).toEqual(['signature']);
      expectLowS(signature);
      expect(digest).toBe(toHex(sha256(bytes)));
      expect(chainId).toBeNull();
      const hash = sha256(bytes);
      expect(Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(Buffer.from(signature, 'hex')), hash, key.publicKey)).toBe(true);
      // Not ADR-36 and not the unhashed message: a different message does not verify.
      expect(Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(Buffer.from(signature, 'hex')), sha256(new TextEncoder().encode(`${message}!`)), key.publicKey)).toBe(false);
    }
  });

  it('sign-message is deterministic (RFC 6979) and matches cosmjs Secp256k1.createSignature', async () => {
    const key = cosmosKey();
    const bytes = new TextEncoder().encode('deterministic');
    const a = await signMessage(key, { message: 'deterministic' });
    const b = await signMessage(key, { message: 'deterministic' });
    expect(a.response.signature).toBe(b.response.signature);
    const reference = Secp256k1.createSignature(sha256(bytes), key.secret); // 65 bytes: r || s || recovery
    expect(a.response.signature).toBe(toHex(reference.toFixedLength().subarray(0, 64)));
  });

  it('sign-raw: an amino StdSignDoc serialized by cosmjs verifies against the wallet key and address', async () => {
    const key = cosmosKey('osmo');
    const pubkey = encodeSecp256k1Pubkey(key.publicKey);
    expect(pubkeyToAddress(pubkey, 'osmo')).toBe(key.address);
    const fee: StdFee = { amount: [{ denom: 'uosmo', amount: '2500' }], gas: '100000' };
    const msgs = [
      {
        type: 'cosmos-sdk/MsgSend',
        value: {
          from_address: key.address,
          to_address: 'osmo1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5z5tpwp',
          amount: [{ denom: 'uosmo', amount: '1234567' }],
        },
      },
    ];
    const signDoc = makeSignDoc(msgs, fee, 'osmosis-1', 'memo', 42, 7);
    const signBytes = serializeSignDoc(signDoc);
    const { response, digest, chainId } = await signRaw(key, { data: toHex(signBytes) });
    const signature = response.signature as string;
    expectLowS(signature);
    expect(digest).toBe(toHex(sha256(signBytes)));
    expect(chainId).toBeNull();
    expect(Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(Buffer.from(signature, 'hex')), sha256(signBytes), key.publicKey)).toBe(true);

    // 0x prefix and upper-case hex sign the same bytes.
    const prefixed = await signRaw(key, { data: `0x${toHex(signBytes).toUpperCase()}`, walletType: 'COSMOS' });
    expect(prefixed.response.signature).toBe(signature);

    // A tampered sign doc (other sequence) does not verify.
    const other = serializeSignDoc(makeSignDoc(msgs, fee, 'osmosis-1', 'memo', 42, 8));
    expect(Secp256k1.verifySignature(Secp256k1Signature.fromFixedLength(Buffer.from(signature, 'hex')), sha256(other), key.publicKey)).toBe(false);
  });

  it('sign-raw: the signature is low-S and the public key is recoverable from it (cosmjs)', async () => {
    for (let i = 0; i < 300; i++) {
      const key = cosmosKey();
      const data = Buffer.from(`raw bytes ${i}`).toString('hex');
      const signature = Buffer.from((await signRaw(key, { data })).response.signature as string, 'hex');
      const hash = sha256(Buffer.from(data, 'hex'));
      const parsed = Secp256k1Signature.fromFixedLength(signature);
      const recovered = [0, 1].map((recovery) =>
        Secp256k1.compressPubkey(Secp256k1.recoverPubkey(new ExtendedSecp256k1Signature(parsed.r(), parsed.s(), recovery), hash)),
      );
      expect(recovered.some((candidate) => toHex(candidate) === toHex(key.publicKey))).toBe(true);
    }
  });

  it('rejects bad input with 400 INVALID_REQUEST', () => {
    const { body: message } = cosmosSigner.message;
    const { body: raw } = cosmosSigner.raw;
    expect400(() => parseInput(message, {}));
    expect400(() => parseInput(message, { message: '' }));
    expect400(() => parseInput(message, { message: 'hi', extra: 1 }));
    expect400(() => parseInput(raw, { data: 'abc' })); // odd length
    expect400(() => parseInput(raw, { data: 'zz' }));
    expect400(() => parseInput(raw, { data: '0x' }));
    expect400(() => parseInput(raw, { data: '' }));
    expect400(() => parseInput(raw, { data: 'abcd', extra: true }));
    expect400(() => parseInput(raw, { data: 'abcd', walletType: 'BITCOIN' }));
  });
});
