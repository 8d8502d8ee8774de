import { createHash } from 'node:crypto';
import {
  hashMessage,
  keccak256,
  parseTransaction,
  recoverAddress,
  recoverPublicKey,
  recoverTransactionAddress,
  serializeTransaction,
  toHex,
  verifyMessage,
  verifyTypedData,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { recoverAuthorizationAddress } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { generateKey } from '../custody/keys.ts';
import { deriveAddress } from '../wallets/addresses.ts';
import { evmSigner } from './evm.ts';
import { expectInvalidRequest as expectInvalid, signWith as run } from './testing.ts';
import type { KeyMaterial } from './types.ts';

function evmKey(): KeyMaterial {
  const { secret, publicKey } = generateKey('DKLS');
  return { secret, publicKey, address: deriveAddress('EVM', publicKey) };
}

/** What the route does: parse the body with the operation's schema, then sign. */
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

describe('evm sign-transaction', () => {
  const to = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

  it('type 2 (EIP-1559): recovers to the wallet and parses back to the input fields', async () => {
    const key = evmKey();
    const transaction = {
      to,
      value: '1000000000000000000',
      data: '0xa9059cbb0000000000000000000000000000000000000000000000000000000000000001',
      chainId: 8453,
      type: 2,
      nonce: 7,
      gasLimit: '21000',
      maxFeePerGas: '30000000000',
      maxPriorityFeePerGas: '1500000000',
    };
    const { response, digest, chainId } = await run(evmSigner.transaction, key, { transaction });
    const serializedTransaction = response.signedTransaction as Hex;
    expect(serializedTransaction).toMatch(/^0x02[0-9a-f]+$/);
    expect(await recoverTransactionAddress({ serializedTransaction: serializedTransaction as `0x02${string}` })).toBe(
      key.address,
    );
    const parsed = parseTransaction(serializedTransaction);
    expect(parsed.type).toBe('eip1559');
    expect(parsed.chainId).toBe(8453);
    expect(parsed.nonce).toBe(7);
    expect(parsed.to?.toLowerCase()).toBe(to.toLowerCase());
    expect(parsed.value).toBe(10n ** 18n);
    expect(parsed.data).toBe(transaction.data);
    expect(parsed.gas).toBe(21000n);
    expect(parsed.maxFeePerGas).toBe(30_000_000_000n);
    expect(parsed.maxPriorityFeePerGas).toBe(1_500_000_000n);
    expect([0, 1]).toContain(parsed.yParity);
    expect(chainId).toBe('8453');
    // The audit digest names the EIP-2718 signing payload (the unsigned serialization).
    const { r, s, v, yParity, ...unsignedFields } = parsed;
    void r, s, v, yParity;
    expect(digest).toBe(sha256(bytesOf(serializeTransaction(unsignedFields))));
  });

  it('equals viem signTransaction byte for byte (type 2 and type 0)', async () => {
    const key = evmKey();
    const account = privateKeyToAccount(toHex(key.secret));
    const base = { to, value: '5', chainId: 1, nonce: 0, gasLimit: '50000' };
    const t2 = await run(evmSigner.transaction, key, {
      transaction: { ...base, maxFeePerGas: '100', maxPriorityFeePerGas: '100' },
    });
    expect(t2.response.signedTransaction).toBe(
      await account.signTransaction({
        type: 'eip1559',
        to,
        value: 5n,
        chainId: 1,
        nonce: 0,
        gas: 50000n,
        maxFeePerGas: 100n,
        maxPriorityFeePerGas: 100n,
      }),
    );
    const t0 = await run(evmSigner.transaction, key, { transaction: { ...base, type: 0, gasPrice: '7' } });
    expect(t0.response.signedTransaction).toBe(
      await account.signTransaction({ type: 'legacy', to, value: 5n, chainId: 1, nonce: 0, gas: 50000n, gasPrice: 7n }),
    );
  });

  it('type 0 (legacy, EIP-155): recovers to the wallet and parses back to the input fields', async () => {
    const key = evmKey();
    const transaction = {
      to: to.toLowerCase(),
      value: '0',
      chainId: 11155111,
      type: 0,
      nonce: 0,
      gasLimit: '100000',
      gasPrice: '2000000000',
      data: '0x',
    };
    const { response, chainId } = await run(evmSigner.transaction, key, { transaction });
    const serializedTransaction = response.signedTransaction as Hex;
    expect(await recoverTransactionAddress({ serializedTransaction: serializedTransaction as never })).toBe(
      key.address,
    );
    const parsed = parseTransaction(serializedTransaction);
    expect(parsed.type).toBe('legacy');
    expect(parsed.chainId).toBe(11155111);
    expect(parsed.nonce).toBe(0);
    expect(parsed.to).toBe(transaction.to);
    expect(parsed.value ?? 0n).toBe(0n);
    expect(parsed.gas).toBe(100000n);
    expect(parsed.gasPrice).toBe(2_000_000_000n);
    expect([11155111n * 2n + 35n, 11155111n * 2n + 36n]).toContain(parsed.v); // EIP-155 replay protection
    expect(chainId).toBe('11155111');
  });

  it('defaults type to 2 and value to "0", and accepts broadcast (signing only)', async () => {
    const key = evmKey();
    const transaction = { to, chainId: 1, nonce: 3, gasLimit: '21000', maxFeePerGas: '10', maxPriorityFeePerGas: '1' };
    const a = await run(evmSigner.transaction, key, { transaction, broadcast: true });
    const b = await run(evmSigner.transaction, key, { transaction: { ...transaction, type: 2, value: '0' } });
    expect(a.response).toEqual(b.response);
    expect(Object.keys(a.response)).toEqual(['signedTransaction']);
    const parsed = parseTransaction(a.response.signedTransaction as Hex);
    expect(parsed.type).toBe('eip1559');
    expect(parsed.value ?? 0n).toBe(0n);
    expect(await recoverTransactionAddress({ serializedTransaction: a.response.signedTransaction as never })).toBe(
      key.address,
    );
  });

  it('handles the largest quantities (2^256 - 1 value)', async () => {
    const key = evmKey();
    const max = ((1n << 256n) - 1n).toString();
    const { response } = await run(evmSigner.transaction, key, {
      transaction: { to, value: max, chainId: 1, nonce: 0, gasLimit: '21000', maxFeePerGas: '1', maxPriorityFeePerGas: '0' },
    });
    expect(parseTransaction(response.signedTransaction as Hex).value).toBe(BigInt(max));
  });

  describe('rejects bad transactions with 400', () => {
    const key = evmKey();
    const type2 = { to, chainId: 1, nonce: 0, gasLimit: '21000', maxFeePerGas: '10', maxPriorityFeePerGas: '1' };
    const type0 = { to, chainId: 1, type: 0, nonce: 0, gasLimit: '21000', gasPrice: '10' };
    const cases: [string, unknown, RegExp][] = [
      ['missing maxFeePerGas on type 2', { transaction: { ...type2, maxFeePerGas: undefined } }, /maxFeePerGas.*required for type 2/],
      ['missing maxPriorityFeePerGas', { transaction: { ...type2, maxPriorityFeePerGas: undefined } }, /maxPriorityFeePerGas/],
      ['gasPrice on type 2', { transaction: { ...type2, gasPrice: '10' } }, /gasPrice: not allowed for type 2/],
      ['missing gasPrice on type 0', { transaction: { ...type0, gasPrice: undefined } }, /gasPrice: required for type 0/],
      ['maxFeePerGas on type 0', { transaction: { ...type0, maxFeePerGas: '10' } }, /maxFeePerGas: not allowed for type 0/],
      ['tip above fee cap', { transaction: { ...type2, maxPriorityFeePerGas: '11' } }, /must not exceed maxFeePerGas/],
      ['type 1', { transaction: { ...type2, type: 1 } }, /type/],
      ['type as string', { transaction: { ...type2, type: '2' } }, /type/],
      ['unknown transaction field', { transaction: { ...type2, accessList: [] } }, /accessList/],
      ['unknown top-level field', { transaction: type2, from: to }, /from/],
      ['missing to', { transaction: { ...type2, to: undefined } }, /to/],
      ['bad checksum', { transaction: { ...type2, to: to.replace('C8', 'c8') } }, /checksum/],
      ['short address', { transaction: { ...type2, to: to.slice(0, 40) } }, /address/],
      ['numeric value', { transaction: { ...type2, value: 1 } }, /value/],
      ['leading zero', { transaction: { ...type2, value: '01' } }, /value/],
      ['negative', { transaction: { ...type2, gasLimit: '-1' } }, /gasLimit/],
      ['hex quantity', { transaction: { ...type2, maxFeePerGas: '0x10' } }, /maxFeePerGas/],
      ['decimal point', { transaction: { ...type2, value: '1.5' } }, /value/],
      ['above 2^256 - 1', { transaction: { ...type2, value: (1n << 256n).toString() } }, /2\^256/],
      ['79 digits', { transaction: { ...type2, value: '1'.repeat(79) } }, /value/],
      ['chainId 0', { transaction: { ...type2, chainId: 0 } }, /chainId/],
      ['chainId as string', { transaction: { ...type2, chainId: '1' } }, /chainId/],
      ['fractional nonce', { transaction: { ...type2, nonce: 1.5 } }, /nonce/],
      ['negative nonce', { transaction: { ...type2, nonce: -1 } }, /nonce/],
      ['odd-length data', { transaction: { ...type2, data: '0xabc' } }, /data/],
      ['data without 0x', { transaction: { ...type2, data: 'abcd' } }, /data/],
      ['broadcast not boolean', { transaction: type2, broadcast: 'yes' }, /broadcast/],
      ['no transaction', {}, /transaction/],
    ];
    for (const [name, body, pattern] of cases) {
      it(name, async () => {
        await expectInvalid(() => run(evmSigner.transaction, key, body), pattern);
      });
    }
  });
});

describe('evm sign-typed-data (EIP-712)', () => {
  // The example of EIP-712 itself.
  const mail = {
    domain: {
      name: 'Ether Mail',
      version: '1',
      chainId: 1,
      verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
    },
    types: {
      Person: [
        { name: 'name', type: 'string' },
        { name: 'wallet', type: 'address' },
      ],
      Mail: [
        { name: 'from', type: 'Person' },
        { name: 'to', type: 'Person' },
        { name: 'contents', type: 'string' },
      ],
    },
    primaryType: 'Mail',
    message: {
      from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
      to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
      contents: 'Hello, Bob!',
    },
  } as const;

  it('the EIP-712 Mail example verifies with viem verifyTypedData and equals viem signTypedData', async () => {
    const key = evmKey();
    const { response, digest, chainId } = await run(evmSigner.typedData, key, { typedData: mail });
    const signature = response.signature as string;
    expect(signature).toMatch(/^[0-9a-f]{130}$/);
    expect(await verifyTypedData({ address: key.address as Hex, ...mail, signature: `0x${signature}` })).toBe(true);
    expect(`0x${signature}`).toBe(await privateKeyToAccount(toHex(key.secret)).signTypedData(mail));
    expect(chainId).toBe('1');
    // Digest: SHA-256 of 0x1901 || domainSeparator || hashStruct(Mail), the EIP's own constants.
    const preimage = Buffer.from(
      '1901' +
        'f2cee375fa42b42143804025fc449deafd50cc031ca257e0b194a650a912090f' +
        'c52c0ee5d84264471806290a3f2c4cecfc5490626bf912d01f240d7a274b371e',
      'hex',
    );
    expect(keccak256(preimage)).toBe('0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2');
    expect(digest).toBe(sha256(preimage));
  });

  it('a tampered message does not verify', async () => {
    const key = evmKey();
    const { response } = await run(evmSigner.typedData, key, { typedData: mail });
    const tampered = { ...mail, message: { ...mail.message, contents: 'Hello, Eve!' } };
    expect(
      await verifyTypedData({ address: key.address as Hex, ...tampered, signature: `0x${response.signature as string}` }),
    ).toBe(false);
  });

  it('handles a domain without chainId, salt, uint / bytes / array fields and string integers', async () => {
    const key = evmKey();
    const typedData = {
      domain: { name: 'Permit', salt: keccak256('0x01') },
      types: {
        Order: [
          { name: 'amount', type: 'uint256' },
          { name: 'small', type: 'uint8' },
          { name: 'tag', type: 'bytes32' },
          { name: 'blob', type: 'bytes' },
          { name: 'ids', type: 'uint64[]' },
          { name: 'ok', type: 'bool' },
        ],
      },
      primaryType: 'Order',
      message: {
        amount: '115792089237316195423570985008687907853269984665640564039457584007913129639935',
        small: 255,
        tag: keccak256('0x02'),
        blob: '0xdeadbeef',
        ids: [1, '2', 3],
        ok: true,
      },
    };
    const { response, chainId } = await run(evmSigner.typedData, key, { typedData });
    expect(chainId).toBeNull();
    expect(
      await verifyTypedData({
        ...(typedData as never as Parameters<typeof verifyTypedData>[0]),
        address: key.address as Hex,
        signature: `0x${response.signature as string}`,
      }),
    ).toBe(true);
  });

  it('accepts chainId as a decimal string in the domain', async () => {
    const key = evmKey();
    const asNumber = await run(evmSigner.typedData, key, { typedData: mail });
    const asString = await run(evmSigner.typedData, key, { typedData: { ...mail, domain: { ...mail.domain, chainId: '1' } } });
    expect(asString.response).toEqual(asNumber.response);
    expect(asString.chainId).toBe('1');
  });

  describe('rejects bad typed data with 400', () => {
    const key = evmKey();
    const cases: [string, unknown, RegExp][] = [
      [
        'EIP712Domain supplied',
        { ...mail, types: { ...mail.types, EIP712Domain: [{ name: 'name', type: 'string' }] } },
        /EIP712Domain is derived from domain; do not send it/,
      ],
      ['primaryType not in types', { ...mail, primaryType: 'Letter' }, /primaryType "Letter" is not defined in types/],
      ['unknown domain field', { ...mail, domain: { ...mail.domain, extra: 'x' } }, /extra/],
      ['unknown typedData field', { ...mail, extra: 1 }, /extra/],
      ['bad verifyingContract', { ...mail, domain: { ...mail.domain, verifyingContract: '0x1234' } }, /verifyingContract/],
      ['negative chainId', { ...mail, domain: { ...mail.domain, chainId: -1 } }, /chainId/],
      ['bad salt', { ...mail, domain: { ...mail.domain, salt: '0x12' } }, /salt/],
      ['field without type', { ...mail, types: { ...mail.types, Person: [{ name: 'name' }] } }, /type/],
      ['message not an object', { ...mail, message: 'hi' }, /message/],
      ['bad address value', { ...mail, message: { ...mail.message, to: { name: 'Bob', wallet: '0x1234' } } }, /invalid typedData: .*0x1234/i],
      [
        'integer out of range',
        { domain: {}, types: { T: [{ name: 'v', type: 'uint8' }] }, primaryType: 'T', message: { v: 256 } },
        /invalid typedData/,
      ],
      [
        'undefined struct type',
        { domain: {}, types: { T: [{ name: 'v', type: 'Missing' }] }, primaryType: 'T', message: { v: {} } },
        /invalid typedData/,
      ],
      [
        'object for a string field',
        { ...mail, message: { ...mail.message, contents: { text: 'hi' } } },
        /message\.contents: expected a string for type string/,
      ],
      ['missing field', { ...mail, message: { ...mail.message, contents: undefined } }, /message\.contents: missing value/],
      [
        'missing nested field',
        { ...mail, message: { ...mail.message, from: { name: 'Cow' } } },
        /message\.from\.wallet: missing value of type address/,
      ],
      [
        'non-hex string for bytes',
        { domain: {}, types: { T: [{ name: 'v', type: 'bytes' }] }, primaryType: 'T', message: { v: 'hello' } },
        /message\.v: expected 0x-prefixed even-length hex/,
      ],
      [
        'boolean for an integer',
        { domain: {}, types: { T: [{ name: 'v', type: 'uint256' }] }, primaryType: 'T', message: { v: true } },
        /message\.v: expected a safe integer/,
      ],
      [
        'integer beyond 2^53 as a JSON number',
        { domain: {}, types: { T: [{ name: 'v', type: 'uint256' }] }, primaryType: 'T', message: { v: 2 ** 60 } },
        /message\.v: expected a safe integer/,
      ],
      [
        'empty string for an integer',
        { domain: {}, types: { T: [{ name: 'v', type: 'int256' }] }, primaryType: 'T', message: { v: '' } },
        /message\.v: expected a safe integer/,
      ],
      [
        'fixed-size array of the wrong length',
        { domain: {}, types: { T: [{ name: 'v', type: 'uint8[2]' }] }, primaryType: 'T', message: { v: [1, 2, 3] } },
        /message\.v: expected an array of 2 elements/,
      ],
      [
        'array element of the wrong kind',
        { domain: {}, types: { T: [{ name: 'v', type: 'string[]' }] }, primaryType: 'T', message: { v: ['a', 1] } },
        /message\.v\[1\]: expected a string/,
      ],
      [
        'bytes32 of the wrong size',
        { domain: {}, types: { T: [{ name: 'v', type: 'bytes32' }] }, primaryType: 'T', message: { v: '0x1234' } },
        /invalid typedData/,
      ],
    ];
    for (const [name, typedData, pattern] of cases) {
      it(name, async () => {
        await expectInvalid(() => run(evmSigner.typedData, key, { typedData }), pattern);
      });
    }
  });
});

describe('evm sign-authorization (EIP-7702)', () => {
  const delegate = '0x63c0c19a282a1B52b07dD5a65b58948A07DAE32B';

  it('recovers to the wallet with viem recoverAuthorizationAddress (address and contractAddress forms)', async () => {
    const key = evmKey();
    for (const [field, chainId, nonce] of [
      ['address', 1, 0],
      ['contractAddress', 8453, 42],
      ['address', 0, 5], // chainId 0: valid on every chain
    ] as const) {
      const { response, digest, chainId: auditChainId } = await run(evmSigner.authorization, key, {
        authorization: { [field]: delegate.toLowerCase(), chainId, nonce },
      });
      expect(response.address).toBe(delegate); // checksummed
      expect(response.chainId).toBe(chainId);
      expect(response.nonce).toBe(nonce);
      expect([0, 1]).toContain(response.yParity);
      expect(response.r).toMatch(/^0x[0-9a-f]{64}$/);
      expect(response.s).toMatch(/^0x[0-9a-f]{64}$/);
      expect(response.signature).toMatch(/^[0-9a-f]{130}$/);
      expect(response.signature).toBe(
        `${(response.r as string).slice(2)}${(response.s as string).slice(2)}${response.yParity === 0 ? '1b' : '1c'}`,
      );
      const signed = response as { address: Hex; chainId: number; nonce: number; r: Hex; s: Hex; yParity: number };
      // Signed-authorization tuple form and detached-signature form (with the viem alias field).
      expect(await recoverAuthorizationAddress({ authorization: signed })).toBe(key.address);
      expect(
        await recoverAuthorizationAddress({
          authorization: { contractAddress: delegate, chainId, nonce },
          signature: `0x${response.signature as string}`,
        }),
      ).toBe(key.address);
      expect(auditChainId).toBe(String(chainId));
      expect(digest).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('equals viem signAuthorization', async () => {
    const key = evmKey();
    const { response } = await run(evmSigner.authorization, key, { authorization: { address: delegate, chainId: 1, nonce: 9 } });
    const viemSigned = await privateKeyToAccount(toHex(key.secret)).signAuthorization({ address: delegate, chainId: 1, nonce: 9 });
    expect(response.r).toBe(viemSigned.r);
    expect(response.s).toBe(viemSigned.s);
    expect(response.yParity).toBe(viemSigned.yParity);
  });

  describe('rejects bad authorizations with 400', () => {
    const key = evmKey();
    const cases: [string, unknown, RegExp][] = [
      ['both address and contractAddress', { address: delegate, contractAddress: delegate, chainId: 1, nonce: 0 }, /exactly one/],
      ['neither', { chainId: 1, nonce: 0 }, /exactly one/],
      ['bad address', { address: '0x12', chainId: 1, nonce: 0 }, /address/],
      ['negative chainId', { address: delegate, chainId: -1, nonce: 0 }, /chainId/],
      ['missing nonce', { address: delegate, chainId: 1 }, /nonce/],
      ['string nonce', { address: delegate, chainId: 1, nonce: '1' }, /nonce/],
      ['unknown field', { address: delegate, chainId: 1, nonce: 0, yParity: 0 }, /yParity/],
    ];
    for (const [name, authorization, pattern] of cases) {
      it(name, async () => {
        await expectInvalid(() => run(evmSigner.authorization, key, { authorization }), pattern);
      });
    }
  });
});
