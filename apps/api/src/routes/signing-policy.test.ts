import { testDatabaseKinds } from '@wallet/db';
import type { PolicyEngine, SigningContext } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

const EVM_CHAIN = 84532;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const FEES = { maxFeePerGas: '20000000000', maxPriorityFeePerGas: '1000000000', gasLimit: '21000' };
const DENIAL = { reason: 'test-denied', policyId: 'policy-1', ruleId: 'rule-1' };

/**
 * Every way the API signs — the five sign routes, transfers, `broadcast: true`, cancellations —
 * reaches the signing pipeline's policy port (decision and spend reservation), with the intent each one describes.
 */
describe.each(testDatabaseKinds)('signing routes through the policy port (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let key: string;
  let deny = false;
  const intents: SigningContext[] = [];
  /** Ids of the reservations the test policy held (real rows of the meter store), in order. */
  const reservations: string[] = [];
  const released: string[] = [];

  const policy: PolicyEngine = {
    async evaluate(intent) {
      intents.push(intent);
      if (deny) return { outcome: 'deny', message: 'Denied by the test policy', deniedBy: [DENIAL] };
      const key = {
        projectId: intent.caller.projectId,
        environment: intent.caller.environment,
        apiKeyId: intent.caller.apiKeyId,
        walletId: intent.wallet.id,
        network: 'test',
        asset: 'native',
        windowMs: 86_400_000,
        windowStart: new Date(0),
      };
      const { reservation } = await app.services.stores.policyMeters.reserve([{ key, amount: 1n }], () => ({ reserve: true, result: null, bounds: new Map() }));
      reservations.push(reservation.id!);
      return {
        outcome: 'allow',
        reservation: {
          id: reservation.id,
          release: async () => {
            released.push(reservation.id!);
            await reservation.release();
          },
        },
      };
    },
  };
  const reservationStatuses = async (ids: string[]) =>
    (await app.database.query<{ status: string }>('SELECT status FROM policy_spend_reservations WHERE id = ANY($1::uuid[])', [ids])).map((r) => r.status);

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    app = await startTestApp(kind, { chains: devnets, signing: { policy } });
    key = (await app.createKey()).apiKey;
  });
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  const post = (path: string, body: unknown) => app.request('POST', path, { key, body });
  const wallet = async (type: string) =>
    (await post('/v1/wallets', { type, userIdentifier: `policy-${type}-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' })).body as { id: string; address: string };
  const fund = async (walletId: string) => expect((await post('/v1/local/faucet', { walletId, amount: '1' })).status).toBe(200);
  /** The intent the last call handed to the policy. */
  const lastIntent = () => {
    const { caller: _caller, wallet: _wallet, ...rest } = intents.at(-1)!;
    return rest;
  };

  it('hands each signature to the policy with its operation, chain and decoded transfer', async () => {
    const evm = await wallet('EVM');
    const sol = await wallet('SOLANA');
    await fund(evm.id);
    await fund(sol.id);

    expect((await post(`/v1/wallets/${evm.id}/sign-message`, { message: 'hi' })).status).toBe(200);
    expect(lastIntent()).toMatchObject({ operation: 'message', action: 'wallet.sign.sign-message', chain: { walletType: 'EVM', chainId: null }, transfer: null });
    expect((await post(`/v1/wallets/${evm.id}/sign-raw`, { data: '11'.repeat(32) })).status).toBe(200);
    expect(lastIntent()).toMatchObject({ operation: 'raw', action: 'wallet.sign.sign-raw', transfer: null });
    const typedData = { domain: { name: 'T', chainId: 10 }, types: { M: [{ name: 'a', type: 'uint256' }] }, primaryType: 'M', message: { a: 1 } };
    expect((await post(`/v1/wallets/${evm.id}/sign-typed-data`, { typedData })).status).toBe(200);
    expect(lastIntent()).toMatchObject({ operation: 'typedData', chain: { chainId: '10' }, transfer: null });
    expect((await post(`/v1/wallets/${evm.id}/sign-authorization`, { authorization: { address: RECIPIENT, chainId: EVM_CHAIN, nonce: 0 } })).status).toBe(200);
    expect(lastIntent()).toMatchObject({ operation: 'authorization', chain: { chainId: String(EVM_CHAIN) } });
    const tx = { to: RECIPIENT, value: '7', chainId: EVM_CHAIN, nonce: 0, ...FEES };
    expect((await post(`/v1/wallets/${evm.id}/sign-transaction`, { transaction: tx })).status).toBe(200);
    expect(lastIntent()).toMatchObject({ operation: 'transaction', action: 'wallet.sign.sign-transaction', transfer: { to: RECIPIENT, value: '7', tokenAddress: null } });

    const broadcast = await post(`/v1/wallets/${evm.id}/sign-transaction`, { transaction: tx, broadcast: true });
    expect(broadcast.status, JSON.stringify(broadcast.body)).toBe(200);
    expect(lastIntent()).toMatchObject({ action: 'wallet.sign.sign-transaction', chain: { chainId: String(EVM_CHAIN) }, transfer: { to: RECIPIENT, value: '7' } });

    // A nonce ahead of the chain keeps the transfer unmined, so it can be cancelled.
    const transfer = await post(`/v1/wallets/${evm.id}/transfer`, { to: RECIPIENT, value: '1000', chainId: EVM_CHAIN, nonce: 9 });
    expect(transfer.status, JSON.stringify(transfer.body)).toBe(200);
    expect(lastIntent()).toMatchObject({ action: 'wallet.sign.transfer', chain: { walletType: 'EVM', chainId: String(EVM_CHAIN) }, transfer: { to: RECIPIENT, value: '1000', tokenAddress: null } });
    const cancel = await post(`/v1/wallets/${evm.id}/transactions/${transfer.body.transactionId}/cancel`, {});
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(lastIntent()).toMatchObject({ action: 'wallet.sign.cancel', transfer: { to: evm.address, value: '0', tokenAddress: null } });

    const solTransfer = await post(`/v1/wallets/${sol.id}/transfer`, { to: (await wallet('SOLANA')).address, value: '10000000', network: 'SOLANA_DEVNET' });
    expect(solTransfer.status, JSON.stringify(solTransfer.body)).toBe(200);
    expect(lastIntent()).toMatchObject({ action: 'wallet.sign.transfer', chain: { walletType: 'SOLANA', network: 'SOLANA_DEVNET' }, transfer: { value: '10000000' } });

    expect(intents.every((intent) => !('shares' in intent))).toBe(true);
    // One reservation per signature, each spent by the audit append of its signature, none released.
    expect(reservations).toHaveLength(9);
    expect(await reservationStatuses(reservations)).toEqual(Array(9).fill('spent'));
    expect(released).toEqual([]);
  });

  it('answers a denial on every signing route with 403 POLICY_DENIED, signing, recording and sending nothing', async () => {
    const evm = await wallet('EVM');
    const sol = await wallet('SOLANA');
    await fund(evm.id);
    await fund(sol.id);
    const pending = await post(`/v1/wallets/${evm.id}/transfer`, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN, nonce: 5 });
    expect(pending.status).toBe(200);
    const audit = () => app.database.prisma.auditLog.count({ where: { walletId: { in: [evm.id, sol.id] }, action: { startsWith: 'wallet.sign' } } });
    const records = () => app.database.prisma.transactionRecord.count({ where: { walletId: { in: [evm.id, sol.id] } } });
    const before = { audit: await audit(), records: await records(), reservations: reservations.length };
    const tx = { to: RECIPIENT, value: '7', chainId: EVM_CHAIN, nonce: 0, ...FEES };
    const calls: [string, unknown][] = [
      [`/v1/wallets/${evm.id}/sign-message`, { message: 'hi' }],
      [`/v1/wallets/${sol.id}/sign-message`, { message: 'hi' }],
      [`/v1/wallets/${evm.id}/sign-raw`, { data: '11'.repeat(32) }],
      [`/v1/wallets/${evm.id}/sign-typed-data`, { typedData: { domain: { name: 'T' }, types: { M: [{ name: 'a', type: 'uint256' }] }, primaryType: 'M', message: { a: 1 } } }],
      [`/v1/wallets/${evm.id}/sign-authorization`, { authorization: { address: RECIPIENT, chainId: EVM_CHAIN, nonce: 0 } }],
      [`/v1/wallets/${evm.id}/sign-transaction`, { transaction: tx }],
      [`/v1/wallets/${evm.id}/sign-transaction`, { transaction: tx, broadcast: true }],
      [`/v1/wallets/${evm.id}/transfer`, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN }],
      [`/v1/wallets/${sol.id}/transfer`, { to: sol.address, value: '1', network: 'SOLANA_DEVNET' }],
      [`/v1/wallets/${evm.id}/transactions/${pending.body.transactionId}/cancel`, {}],
    ];
    deny = true;
    try {
      for (const [path, body] of calls) {
        const response = await post(path, body);
        expect(response.status, `${path} ${JSON.stringify(response.body)}`).toBe(403);
        expect(response.body).toEqual({ code: 'POLICY_DENIED', message: 'Denied by the test policy', reason: DENIAL.reason, deniedBy: [DENIAL] });
        expect(response.headers.get('x-transaction-id')).toBeNull();
      }
    } finally {
      deny = false;
    }
    expect(await audit()).toBe(before.audit);
    expect(await records()).toBe(before.records);
    expect(reservations.length).toBe(before.reservations);
    // The OpenAPI document names the denial on every route that signs.
    const openapi = (await app.request('GET', '/v1/openapi.json')).body;
    for (const path of ['sign-message', 'sign-raw', 'sign-transaction', 'sign-typed-data', 'sign-authorization', 'transfer', 'transactions/{transactionId}/cancel']) {
      const denied = openapi.paths[`/v1/wallets/{walletId}/${path}`].post.responses['403'];
      expect(denied.description, path).toMatch(/POLICY_DENIED/);
    }
    expect(openapi.components.schemas.PolicyDenied.required).toEqual(['code', 'message', 'reason', 'deniedBy']);
    // The transfer's allocated nonce was given back: the next transfer still gets nonce 0.
    const next = await post(`/v1/wallets/${evm.id}/transfer`, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect((await app.request('GET', `/v1/wallets/${evm.id}/transactions/${next.body.transactionId}`, { key })).body.nonce).toBe(0);
  });
});
