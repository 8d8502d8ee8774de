import { describe, expect, it } from 'vitest';
import type { WalletRecord } from '../ports.ts';
import { transferBodyFor } from '../transactions/schemas.ts';
import { batchSponsorshipRefusal, sponsorshipEligibility } from './eligibility.ts';

const USDC = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
const recipient = '0x000000000000000000000000000000000000dEaD';
const chains = [{ chainId: 84532, tokens: [USDC] }];

const wallet = (changes: Partial<WalletRecord> = {}): WalletRecord => ({
  id: 'd8f0c1a4-5b6e-4f7a-8b9c-0d1e2f3a4b5c',
  projectId: 'a8f0c1a4-5b6e-4f7a-8b9c-0d1e2f3a4b5c',
  type: 'EVM',
  scheme: 'DKLS',
  address: '0x1111111111111111111111111111111111111111',
  publicKey: '0x02',
  status: 'ready',
  userIdentifier: 'user@example.com',
  userIdentifierType: 'EMAIL',
  cosmosPrefix: null,
  custody: 'api_key',
  custodyMode: 'isolated',
  claimedAt: null,
  claimedByUserId: null,
  migratedAt: null,
  createdAt: new Date(0),
  updatedAt: new Date(0),
  ...changes,
});

/** A transfer body as the route validates it for an EVM wallet. */
const body = (changes: Record<string, unknown> = {}) => transferBodyFor('EVM', 'transfer').parse({ to: recipient, value: '1000000', chainId: 84532, tokenAddress: USDC, ...changes });

describe('sponsorshipEligibility', () => {
  it('sponsors an ERC-20 transfer of a sponsored token, whatever the address case', () => {
    expect(sponsorshipEligibility(wallet(), body(), chains)).toEqual({ eligible: true });
    expect(sponsorshipEligibility(wallet(), body({ tokenAddress: USDC.toLowerCase(), kind: 'ERC20', chainId: '84532' }), chains)).toEqual({ eligible: true });
  });

  it.each([
    ['a native transfer', wallet(), body({ tokenAddress: undefined }), 'only ERC-20 transfers are sponsored'],
    ['another token', wallet(), body({ tokenAddress: recipient }), `token ${recipient} is not sponsored on chain 84532`],
    ['another chain', wallet(), body({ chainId: 1 }), 'chain 1 has no sponsorship'],
    ['a nonce override', wallet(), body({ nonce: 3 }), 'the request sets nonce'],
    ['a transaction type', wallet(), body({ type: 2 }), 'the request sets type'],
    ['a gas limit', wallet(), body({ gasLimit: '90000' }), 'the request sets gasLimit'],
    ['fee overrides', wallet(), body({ maxFeePerGas: '2', maxPriorityFeePerGas: '1' }), 'the request sets maxFeePerGas'],
    ['a legacy gas price', wallet(), body({ type: 0, gasPrice: '2' }), 'the request sets type'],
    ['a claimed wallet', wallet({ claimedAt: new Date(1) }), body(), 'only API-created, unclaimed, ready wallets are sponsored'],
    ['a migrated wallet', wallet({ migratedAt: new Date(1) }), body(), 'only API-created, unclaimed, ready wallets are sponsored'],
    ['a client-custody wallet', wallet({ custody: 'client' }), body(), 'only API-created, unclaimed, ready wallets are sponsored'],
    ['a wallet still being created', wallet({ status: 'creating' }), body(), 'only API-created, unclaimed, ready wallets are sponsored'],
  ])('keeps %s on the legacy path', (_name, from, input, reason) => {
    expect(sponsorshipEligibility(from, input, chains)).toEqual({ eligible: false, reason });
  });

  it('keeps every transfer on the legacy path when no chain is sponsored, and other wallet types always', () => {
    expect(sponsorshipEligibility(wallet(), body(), [])).toEqual({ eligible: false, reason: 'chain 84532 has no sponsorship' });
    expect(sponsorshipEligibility(wallet({ type: 'SOLANA' }), body(), chains)).toEqual({ eligible: false, reason: 'SOLANA wallets send their own transactions' });
  });
});

describe('batchSponsorshipRefusal', () => {
  const pool = '0x1111111111111111111111111111111111111111';
  const chain = { chainId: 84532, tokens: [USDC], contracts: [pool] };

  it('sponsors calls to the sponsored tokens and listed contracts, in any case, without native value', () => {
    expect(batchSponsorshipRefusal([{ to: USDC.toLowerCase(), value: '0' }, { to: pool, value: '0' }], chain)).toBeNull();
  });

  it('names the first call to anything else, or with native value', () => {
    expect(batchSponsorshipRefusal([{ to: USDC, value: '0' }, { to: recipient, value: '0' }], chain)).toBe(`call 1 of the batch calls ${recipient}, which is not a token or contract sponsored on chain 84532`);
    expect(batchSponsorshipRefusal([{ to: pool, value: '1' }], chain)).toBe('call 0 of the batch sends native value, which is never sponsored');
    expect(batchSponsorshipRefusal([{ to: pool, value: '0' }], { chainId: 84532, tokens: [USDC] })).toMatch(/^call 0 of the batch calls/);
  });
});
