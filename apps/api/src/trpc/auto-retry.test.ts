import { testDatabaseKinds } from '@wallet/db';
import { parseTransaction, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { consolePartner, restWallet } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { EVM_CHAIN, RECIPIENT } from '../testing/monitor-fixtures.ts';
import { trpcFailure } from '../testing/staff-client.ts';

type Partner = Awaited<ReturnType<typeof consolePartner>>;

const READ_ONLY = { status: 403, body: { code: 'FORBIDDEN', message: 'Support staff have read-only access' } };
const OWNERS_ONLY = { status: 403, body: { code: 'FORBIDDEN', message: 'Only owners may change managed automatic retry' } };
const NOT_PROJECT = { status: 404, body: { code: 'NOT_FOUND', message: 'Project not found' } };

/**
 * The project's default of managed automatic retry: read by every staff role, changed by owners in
 * the console (tRPC), audited; applied to the REST transfers (on anvil) that name no `autoRetry`.
 */
describe.each(testDatabaseKinds)('managed automatic retry: the project default (console and transfers) on %s', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let a: Partner;
  let b: Partner;
  const passwords: string[] = [];

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25 });
    app = await startTestApp(kind, { chains: devnets });
    [a, b] = await Promise.all([consolePartner(app, passwords), consolePartner(app, passwords)]);
  });
  afterAll(async () => {
    const logs = app?.logLines.join('') ?? '';
    for (const secret of [...(app?.secrets() ?? []), ...passwords]) expect(logs).not.toContain(secret);
    await app?.close();
    await devnets?.stop();
  });

  const here = (environment: 'development' | 'production' = 'development') => ({ projectId: a.key.projectId, environment });
  const audit = async () =>
    (await app.database.prisma.auditLog.findMany({ where: { projectId: a.key.projectId, action: 'auto_retry.change' }, orderBy: { id: 'asc' } })).map((row) => row.details);

  /** A funded wallet's native transfer over REST: the record as the single lookup shows it, and the signed fee cap. */
  async function transfer(walletId: string, extra: Record<string, unknown> = {}) {
    const sent = await app.request('POST', `/v1/wallets/${walletId}/transfer`, { key: a.key.apiKey, body: { to: RECIPIENT, value: '1000', chainId: EVM_CHAIN, ...extra } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const record = (await app.request('GET', `/v1/wallets/${walletId}/transactions/${sent.body.transactionId}`, { key: a.key.apiKey })).body;
    return { record, maxFeePerGas: parseTransaction(sent.body.signedTransaction as Hex).maxFeePerGas! };
  }

  it('reads the built-in default for every role; only owners change it; another partner gets 404; bad input is refused by field; refusals write nothing', async () => {
    const untouched = { ...here(), enabled: true, maxFeePerGas: null, updatedAt: null, updatedBy: null, updatedByEmail: null };
    for (const role of [a.support, a.developer, a.owner]) expect(await role.autoRetry.get.query(here())).toEqual(untouched);

    const off = { ...here(), enabled: false, maxFeePerGas: null };
    expect(await trpcFailure(a.developer.autoRetry.change.mutate(off))).toEqual(OWNERS_ONLY);
    expect(await trpcFailure(a.support.autoRetry.change.mutate(off))).toEqual(READ_ONLY);
    expect(await trpcFailure(b.owner.autoRetry.change.mutate(off))).toEqual(NOT_PROJECT);
    expect(await trpcFailure(b.owner.autoRetry.get.query(here()))).toEqual(NOT_PROJECT);
    for (const [change, path] of [
      [{ enabled: true, maxFeePerGas: '0' }, 'maxFeePerGas'],
      [{ enabled: true, maxFeePerGas: '1.5' }, 'maxFeePerGas'],
      [{ enabled: true, maxFeePerGas: '007' }, 'maxFeePerGas'],
      [{ enabled: 'yes', maxFeePerGas: null }, 'enabled'],
    ] as const) {
      const refused = await trpcFailure(a.owner.autoRetry.change.mutate({ ...here(), ...(change as { enabled: boolean; maxFeePerGas: string | null }) }));
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 'INVALID_REQUEST', details: [expect.objectContaining({ path })] });
    }
    expect(await a.owner.autoRetry.get.query(here())).toEqual(untouched);
    expect(await audit()).toEqual([]);
  });

  it("applies the project's default to transfers that name no autoRetry; the request's option wins; the other environment keeps the built-in default", async () => {
    const w = await restWallet(app, a.key.apiKey);
    expect((await app.request('POST', '/v1/local/faucet', { key: a.key.apiKey, body: { walletId: w.id, amount: '1', token: 'native' } })).status).toBe(200);

    const builtIn = await transfer(w.id);
    expect(builtIn.record.autoRetry).toMatchObject({ enabled: true, maxFeePerGas: (builtIn.maxFeePerGas * 10n).toString() });

    const me = (await a.owner.auth.me.query())!;
    const staff = { type: 'staff', id: me.staffId };
    expect(await a.owner.autoRetry.change.mutate({ ...here(), enabled: false, maxFeePerGas: null })).toMatchObject({
      enabled: false,
      maxFeePerGas: null,
      updatedBy: staff,
      updatedByEmail: me.email,
    });
    expect((await transfer(w.id)).record.autoRetry).toEqual({ enabled: false, maxFeePerGas: null, attempts: [expect.objectContaining({ outcome: 'pending' })] });
    const optedIn = await transfer(w.id, { autoRetry: { enabled: true } });
    expect(optedIn.record.autoRetry).toMatchObject({ enabled: true, maxFeePerGas: (optedIn.maxFeePerGas * 10n).toString() });
    // A Solana transfer follows the same switch (it has no fee ceiling).
    const sol = (await app.request('POST', '/v1/wallets', { key: a.key.apiKey, body: { type: 'SOLANA', userIdentifier: `retry-sol-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body;
    expect((await app.request('POST', '/v1/local/faucet', { key: a.key.apiKey, body: { walletId: sol.id, amount: '1', token: 'native' } })).status).toBe(200);
    const solTransfer = async (extra: Record<string, unknown> = {}) => {
      const sent = await app.request('POST', `/v1/wallets/${sol.id}/transfer`, { key: a.key.apiKey, body: { to: sol.address, value: '1000', network: 'SOLANA_DEVNET', ...extra } });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      return sent.body.autoRetry;
    };
    expect(await solTransfer()).toMatchObject({ enabled: false, maxFeePerGas: null });
    expect(await solTransfer({ autoRetry: { enabled: true } })).toMatchObject({ enabled: true, maxFeePerGas: null });

    const ceiling = '123456789000';
    expect(await a.owner.autoRetry.change.mutate({ ...here(), enabled: true, maxFeePerGas: ceiling })).toMatchObject({ enabled: true, maxFeePerGas: ceiling });
    expect((await transfer(w.id)).record.autoRetry).toMatchObject({ enabled: true, maxFeePerGas: ceiling });
    expect((await transfer(w.id, { autoRetry: { enabled: true, maxFeePerGas: '999000000000' } })).record.autoRetry).toMatchObject({ maxFeePerGas: '999000000000' });
    expect((await transfer(w.id, { autoRetry: { enabled: false } })).record.autoRetry).toMatchObject({ enabled: false, maxFeePerGas: null });
    // A pinned fee is never retried, whatever the project says.
    expect((await transfer(w.id, { maxFeePerGas: '50000000000', maxPriorityFeePerGas: '1000000000' })).record.autoRetry).toMatchObject({ enabled: false, maxFeePerGas: null });

    expect(await a.support.autoRetry.get.query(here('production'))).toMatchObject({ enabled: true, maxFeePerGas: null, updatedAt: null });
    expect(await audit()).toEqual([
      { environment: 'development', actor: staff, enabled: false, maxFeePerGas: null },
      { environment: 'development', actor: staff, enabled: true, maxFeePerGas: ceiling },
    ]);
  });
});
