import { decodeFunctionData, parseSignature, recoverAddress, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { recoverAuthorizationAddress } from 'viem/utils';
import { describe, expect, it } from 'vitest';
import { authorizationHash, signedAuthorization, verifyAuthorization } from './authorization.ts';
import { DEFAULT_SPONSORED_GAS_LIMITS, ERC20_TRANSFER_ABI, SIMPLE_7702_ACCOUNT_ADDRESS, SIMPLE_7702_EXECUTE_ABI } from './constants.ts';
import { withOwnerSignature } from './owner-signature.ts';
import { parseUserOperation, serializeUserOperation } from './serialize.ts';
import { sponsorshipDigest, withSponsorSignature } from './sponsorship-hash.ts';
import { buildSponsoredTransfer, maxOperationCostWei, type SponsoredUserOperation } from './user-operation.ts';

const wallet = privateKeyToAccount(generatePrivateKey());
const token: Address = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const recipient: Address = '0x000000000000000000000000000000000000dEaD';
const paymaster: Address = '0x1111111111111111111111111111111111111111';
const base = { sender: wallet.address, token, recipient, amount: 1_500_000n, nonce: 3n, paymaster, maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000n };
const signature65 = `0x${'11'.repeat(32)}${'22'.repeat(32)}1b` as const;

async function signedOp(): Promise<SponsoredUserOperation> {
  const params = { chainId: 84532, delegate: SIMPLE_7702_ACCOUNT_ADDRESS, nonce: 0 };
  const authorization = signedAuthorization(params, await wallet.sign({ hash: authorizationHash(params) }));
  const op = withSponsorSignature(buildSponsoredTransfer({ ...base, authorization }), { validUntil: 2_000_000_000, validAfter: 0, signature: signature65 });
  return withOwnerSignature(op, signature65);
}

describe('buildSponsoredTransfer and maxOperationCostWei', () => {
  it('encodes execute(token, 0, transfer(recipient, amount)) with the documented gas limits', () => {
    const op = buildSponsoredTransfer(base);
    const execute = decodeFunctionData({ abi: SIMPLE_7702_EXECUTE_ABI, data: op.callData });
    expect(execute.args.slice(0, 2)).toEqual([token, 0n]);
    expect(decodeFunctionData({ abi: ERC20_TRANSFER_ABI, data: execute.args[2] }).args).toEqual([recipient, 1_500_000n]);
    expect(op).toMatchObject({ ...DEFAULT_SPONSORED_GAS_LIMITS, nonce: 3n, paymaster, paymasterData: '0x', signature: '0x' });
    expect(op.authorization).toBeUndefined();
  });

  it('maxOperationCostWei = (call + verification + preVerification + paymaster verification + postOp gas) × maxFeePerGas', () => {
    expect(maxOperationCostWei(buildSponsoredTransfer(base))).toBe((60_000n + 60_000n + 0n + 40_000n + 0n) * 2_000_000_000n);
    const op = buildSponsoredTransfer({ ...base, gasLimits: { callGasLimit: 100_000n, preVerificationGas: 21_000n, paymasterPostOpGasLimit: 7n } });
    expect(maxOperationCostWei(op)).toBe((100_000n + 60_000n + 21_000n + 40_000n + 7n) * 2_000_000_000n);
  });

  it('refuses a zero amount, a tip above the fee cap, a negative nonce and oversized gas', () => {
    expect(() => buildSponsoredTransfer({ ...base, amount: 0n })).toThrow(RangeError);
    expect(() => buildSponsoredTransfer({ ...base, maxPriorityFeePerGas: base.maxFeePerGas + 1n })).toThrow(/maxPriorityFeePerGas/);
    expect(() => buildSponsoredTransfer({ ...base, nonce: -1n })).toThrow(/nonce/);
    expect(() => buildSponsoredTransfer({ ...base, gasLimits: { callGasLimit: 1n << 128n } })).toThrow(/callGasLimit/);
  });
});

describe('signing order', () => {
  it('the sponsor signs before the owner; the owner only a sponsored op', () => {
    const op = buildSponsoredTransfer(base);
    expect(() => withOwnerSignature(op, signature65)).toThrow(/sponsor it before/);
    const sponsored = withSponsorSignature(op, { validUntil: 100, validAfter: 0, signature: signature65 });
    expect(sponsored.paymasterData).toBe(`0x01${(100).toString(16).padStart(12, '0')}${'0'.repeat(12)}${signature65.slice(2)}`);
    expect(() => withSponsorSignature(withOwnerSignature(sponsored, signature65), { validUntil: 100, validAfter: 0, signature: signature65 })).toThrow(/already signed/);
    expect(() => withSponsorSignature(op, { validUntil: 10, validAfter: 10, signature: signature65 })).toThrow(/validUntil/);
    expect(() => withSponsorSignature(op, { validUntil: 100, validAfter: 0, signature: '0x1234' })).toThrow(/65 bytes/);
  });

  it('sponsorshipDigest is the EIP-191 hash a signMessage({ raw }) signs', async () => {
    const sponsor = privateKeyToAccount(generatePrivateKey());
    const hash = `0x${'5a'.repeat(32)}` as const;
    const viaRaw = await sponsor.sign({ hash: sponsorshipDigest(hash) });
    expect(viaRaw).toBe(await sponsor.signMessage({ message: { raw: hash } }));
    expect(await recoverAddress({ hash: sponsorshipDigest(hash), signature: viaRaw })).toBe(sponsor.address);
  });

  it('the authorization assembled from (r, s, yParity) recovers to the wallet; chain id 0 is refused', async () => {
    const params = { chainId: 84532, delegate: SIMPLE_7702_ACCOUNT_ADDRESS, nonce: 5 };
    const { r, s, yParity } = parseSignature(await wallet.sign({ hash: authorizationHash(params) }));
    const authorization = signedAuthorization(params, { r, s, yParity: yParity! });
    expect(await recoverAuthorizationAddress({ authorization })).toBe(wallet.address);
    expect(await verifyAuthorization(authorization, wallet.address)).toBe(true);
    expect(await verifyAuthorization(authorization, recipient)).toBe(false);
    expect(() => authorizationHash({ ...params, chainId: 0 })).toThrow(/chainId/);
  });
});

describe('serializeUserOperation / parseUserOperation', () => {
  it('round-trips byte for byte, with and without an authorization', async () => {
    const op = await signedOp();
    const json = serializeUserOperation(op);
    expect(parseUserOperation(json)).toEqual(op);
    expect(serializeUserOperation(parseUserOperation(json))).toBe(json);
    const { authorization: _omit, ...withoutAuthorization } = op;
    const json2 = serializeUserOperation(withoutAuthorization);
    expect(json2).not.toContain('authorization');
    expect(serializeUserOperation(parseUserOperation(json2))).toBe(json2);
    expect(JSON.parse(json).nonce).toBe('3');
  });

  it('normalizes case (addresses checksummed, hex lower-case) so equal ops serialize equally', async () => {
    const json = serializeUserOperation(await signedOp());
    const shouting = json.replace(/"0x([0-9a-fA-F]+)"/g, (_m, h: string) => `"0x${h.toUpperCase()}"`);
    expect(serializeUserOperation(parseUserOperation(shouting))).toBe(json);
  });

  it('refuses unknown, missing and malformed fields with the field name', async () => {
    const good = JSON.parse(serializeUserOperation(await signedOp())) as Record<string, unknown>;
    const parse = (patch: Record<string, unknown>) => () => parseUserOperation(JSON.stringify({ ...good, ...patch }));
    expect(parse({ extra: 1 })).toThrow(/op\.extra is not a known field/);
    expect(() => parseUserOperation(JSON.stringify({ ...good, nonce: undefined }))).toThrow(/op\.nonce is missing/);
    expect(parse({ nonce: 3 })).toThrow(/nonce must be a decimal string/);
    expect(parse({ nonce: '03' })).toThrow(/nonce/);
    expect(parse({ nonce: '-1' })).toThrow(/nonce/);
    expect(parse({ callGasLimit: (1n << 128n).toString() })).toThrow(/callGasLimit is out of range/);
    expect(parse({ callData: '0xabc' })).toThrow(/callData must be 0x-prefixed hex/);
    expect(parse({ sender: '0x1234' })).toThrow(/sender must be an address/);
    expect(parse({ authorization: { ...(good.authorization as object), yParity: 2 } })).toThrow(/authorization\.yParity/);
    expect(parse({ authorization: { ...(good.authorization as object), r: '0x12' } })).toThrow(/authorization\.r must be 32 bytes/);
    expect(() => parseUserOperation('{')).toThrow(/JSON is not valid/);
    expect(() => parseUserOperation('[]')).toThrow(/op must be an object/);
  });
});
