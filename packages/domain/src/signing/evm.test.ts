import { createHash } from 'node:crypto';
import {
  hashMessage,
  keccak256,
  recoverAddress,
  recoverPublicKey,
  toHex,
  verifyMessage,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { evmSigner } from './evm.ts';
import { expectInvalidRequest as expectInvalid, keyMaterial, signWith as run } from './testing.ts';

const evmKey = () => keyMaterial('EVM');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');
const bytesOf = (hex: Hex) => Buffer.from(hex.slice(2), 'hex');

describe('evmSigner capabilities', () => {
  it('offers every operation of the EVM column of the capability matrix', () => {
    expect(evmSigner.message).toBeDefined();
    expect(evmSigner.raw).toBeDefined();
    expect(evmSigner.transaction).toBeDefined();
    expect(evmSigner.typedData).toBeDefined();
    expect(evmSigner.authorization).toBeDefined();
  });

  it('names every body schema for the OpenAPI document', () => {
    expect(evmSigner.transaction!.body.meta()?.id).toBe('EvmSignTransactionRequest');
    expect(evmSigner.typedData!.body.meta()?.id).toBe('EvmSignTypedDataRequest');
    expect(evmSigner.authorization!.body.meta()?.id).toBe('EvmSignAuthorizationRequest');
    expect(evmSigner.message.body.meta()?.id).toBe('SignMessageRequest');
    expect(evmSigner.raw.body.meta()?.id).toBe('SignRawRequest');
  });

  it('the key material agrees with viem (address derived from the secret)', () => {
    const key = evmKey();
    expect(privateKeyToAccount(toHex(key.secret)).address).toBe(key.address);
  });
});

describe('evm sign-message (EIP-191)', () => {
  it('verifies with viem verifyMessage and equals viem signMessage', async () => {
    for (const text of ['hello world', 'ünïcödé ✓ 🚀', 'x'.repeat(5000), '\n\0']) {
      const key = evmKey();
      const { response, digest, chainId } = await run(evmSigner.message, key, { message: text });
      const signature = response.signature as string;
      expect(signature).toMatch(/^[0-9a-f]{130}$/);
      expect(['1b', '1c']).toContain(signature.slice(128));
      expect(await verifyMessage({ address: key.address as Hex, message: text, signature: `0x${signature}` })).toBe(
        true,
      );
      // RFC 6979 makes ECDSA deterministic: byte-identical to viem's own signer.
      expect(`0x${signature}`).toBe(await privateKeyToAccount(toHex(key.secret)).signMessage({ message: text }));
      expect(digest).toBe(sha256(Buffer.from(text, 'utf8')));
      expect(chainId).toBeNull();
    }
  });

  it('a signature does not verify for another message or another address', async () => {
    const key = evmKey();
    const { response } = await run(evmSigner.message, key, { message: 'a' });
    const signature = `0x${response.signature as string}` as Hex;
    expect(await verifyMessage({ address: key.address as Hex, message: 'b', signature })).toBe(false);
    expect(await verifyMessage({ address: evmKey().address as Hex, message: 'a', signature })).toBe(false);
  });

  it('rejects an empty message and unknown fields', async () => {
    const key = evmKey();
    await expectInvalid(() => run(evmSigner.message, key, { message: '' }));
    await expectInvalid(() => run(evmSigner.message, key, { message: 'hi', extra: 1 }), /extra/);
  });
});

describe('evm sign-raw', () => {
  it('signs the 32 bytes as the hash itself: recoverAddress / recoverPublicKey give the wallet', async () => {
    const key = evmKey();
    const hash = hashMessage('anything'); // any 32 bytes
    for (const data of [hash, hash.slice(2), hash.toUpperCase().replace('0X', '0x')]) {
      const { response, digest, chainId } = await run(evmSigner.raw, key, { data });
      const signature = `0x${response.signature as string}` as Hex;
      expect(signature).toMatch(/^0x[0-9a-f]{130}$/);
      expect(await recoverAddress({ hash, signature })).toBe(key.address);
      expect(await recoverPublicKey({ hash, signature })).toBe(privateKeyToAccount(toHex(key.secret)).publicKey);
      expect(digest).toBe(sha256(bytesOf(hash)));
      expect(chainId).toBeNull();
    }
  });

  it('does not prefix or hash: differs from sign-message over the same bytes', async () => {
    const key = evmKey();
    const hash = keccak256('0x1234');
    const rawSig = (await run(evmSigner.raw, key, { data: hash })).response.signature as string;
    expect(await recoverAddress({ hash: hashMessage({ raw: hash }), signature: `0x${rawSig}` })).not.toBe(key.address);
  });

  it('accepts and ignores the walletType guard field', async () => {
    const key = evmKey();
    const hash = keccak256('0x00');
    const { response } = await run(evmSigner.raw, key, { data: hash, walletType: 'EVM' });
    expect(await recoverAddress({ hash, signature: `0x${response.signature as string}` })).toBe(key.address);
  });

  it('rejects anything but exactly 32 bytes', async () => {
    const key = evmKey();
    await expectInvalid(
      () => run(evmSigner.raw, key, { data: '0x' + 'ab'.repeat(31) }),
      /^EVM sign-raw signs exactly 32 bytes \(a hash\); got 31 bytes/,
    );
    await expectInvalid(() => run(evmSigner.raw, key, { data: 'ab'.repeat(33) }), /got 33 bytes/);
    await expectInvalid(() => run(evmSigner.raw, key, { data: 'ab' }), /got 1 bytes/);
  });

  it('rejects odd-length, non-hex and empty data, and unknown fields', async () => {
    const key = evmKey();
    await expectInvalid(() => run(evmSigner.raw, key, { data: '0x' + 'a'.repeat(63) }), /data/);
    await expectInvalid(() => run(evmSigner.raw, key, { data: '0x' + 'zz'.repeat(32) }), /data/);
    await expectInvalid(() => run(evmSigner.raw, key, { data: '' }), /data/);
    await expectInvalid(() => run(evmSigner.raw, key, { data: '0x' }), /data/);
    await expectInvalid(() => run(evmSigner.raw, key, { data: keccak256('0x'), hash: true }), /hash/);
    await expectInvalid(() => run(evmSigner.raw, key, { data: keccak256('0x'), walletType: 'BITCOIN' }), /walletType/);
  });
});
