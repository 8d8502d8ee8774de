import { createHash } from 'node:crypto';
import { keccak256, toHex, verifyTypedData, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { recoverAuthorizationAddress } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { evmSigner } from './evm.ts';
import { expectInvalidRequest as expectInvalid, keyMaterial, signWith as run } from './testing.ts';

const evmKey = () => keyMaterial('EVM');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex');

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
