import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase, createStores, openDatabase, type Database } from '@wallet/db';
import { createServiceKeys, fileKekProvider, systemClock } from '@wallet/domain';
import { createLocalKeyVault } from '@wallet/domain/custody/local-vault.ts';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../config.ts';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { guardrail } from '../testing/policy-fixtures.ts';
import { checkedServiceCalls } from '../testing/response-contract.ts';
import { exited, localServiceEnv, spawnService, suiteProcesses, type ServiceProcess } from '../testing/service-process.ts';

const run = promisify(execFile);
const EVM_CHAIN = 84532;
const SOLANA = 'SOLANA_DEVNET';
const USDC = 1_000_000n;
const VAULT_MARKET = 'vaultprov-v2-base-sepolia-demo-usdc';
/** A killed request's Idempotency-Key, a sponsored record and a yield operation are taken over after this. */
const LEASE_MS = 2_000;
const postgres = process.env.TEST_DATABASE_URL;

/** What one signature left in the database: its record, audit row, `transaction.signed` event (and webhook deliveries), spend. */
interface SignatureTrace {
  records: number;
  audit: number;
  events: number;
  deliveries: number;
  spent: number;
}

/**
 * SIGKILL with real processes between the signature and its record (CRASH_AT `signed`: the key
 * vault answered, nothing is committed yet), on an EVM transfer, a Solana transfer, a sponsored
 * transfer and a yield step, one process at a time on one database (the embedded one in the data
 * directory, or PostgreSQL with TEST_DATABASE_URL). Right after the kill the wallet holds either
 * its signed record with the audit row, the `transaction.signed` event and the spent reservation,
 * or none of them; the same request (same Idempotency-Key) on a restarted process then ends with
 * exactly one confirmed record, signed and audited once.
 */
describe(`a signature whose process is killed before its record (${postgres ? 'PostgreSQL' : 'PGlite'})`, () => {
  const { children, cleanups } = suiteProcesses();
  let devnets: LocalDevnets;
  let usdc: string;
  // Each test has its own data directory and database (a killed process leaves nothing to the next).
  let dataDir: string;
  let env: Record<string, string>;
  let apiKey: string;
  let projectId: string;
  let scratchUrl: string | undefined;
  let service: ServiceProcess | undefined;

  const open = () => (scratchUrl ? openDatabase({ databaseUrl: scratchUrl }) : openDatabase({ dataDir: path.join(dataDir, 'db'), worker: false }));
  async function withDatabase<T>(work: (db: Database) => Promise<T>): Promise<T> {
    const db = await open();
    try {
      return await work(db);
    } finally {
      await db.close();
    }
  }
  const cli = (script: string, args: string[]) => run(process.execPath, ['--import', 'tsx', `apps/api/src/cli/${script}`, ...args], { cwd: repoRoot, env });

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100, sponsorship: true, yieldMarkets: true });
    cleanups.push(() => devnets.stop());
    usdc = devnets.directory.list().find((c) => c.type === 'EVM')!.usdc!.address;
  }, 120_000);

  /** A fresh data directory and database with an API key whose transfers are metered (and, with `sponsored`, gas sponsorship on). */
  async function setUp(name: string, { sponsored = false } = {}) {
    dataDir = mkdtempSync(path.join(tmpdir(), `wallet-signed-crash-${name}-`));
    const dir = dataDir;
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    scratchUrl = undefined;
    if (postgres) {
      const scratch = await createScratchDatabase(postgres, `signedcrash${name}`);
      scratchUrl = scratch.url;
      cleanups.push(scratch.drop);
    }
    const y = devnets.yield!;
    const extra: Record<string, string> = {};
    if (sponsored) {
      // The sponsor and relayer keys live in the database under the data directory's KEKs, as the service creates them.
      const local = await withDatabase((db) =>
        devnets.sponsorship!(createServiceKeys({ store: createStores(db).serviceKeys, vault: createLocalKeyVault({ keks: fileKekProvider(path.join(dir, 'signer')) }), clock: systemClock })),
      );
      extra.SPONSORSHIP = JSON.stringify([{ chainId: EVM_CHAIN, paymaster: local.chain.paymaster, tokens: [usdc] }]);
    }
    env = localServiceEnv(dataDir, {
      ...(scratchUrl ? { DATABASE_URL: scratchUrl } : {}),
      IDEMPOTENCY_LEASE_MS: String(LEASE_MS),
      SPONSORED_LEASE_MS: String(LEASE_MS),
      YIELD_LEASE_MS: String(LEASE_MS),
      CHAINS: JSON.stringify([
        { type: 'EVM', chainId: EVM_CHAIN, rpcUrl: devnets.evmRpcUrl, isDevnet: true, usdcAddress: usdc },
        { type: 'SOLANA', network: SOLANA, rpcUrl: devnets.solanaRpcUrl, isDevnet: true },
      ]),
      YIELD_MARKETS: JSON.stringify([{ id: VAULT_MARKET, usdc: y.vault.usdc, vault: y.vault.vault, bundler: y.vault.bundler }]),
      ...extra,
    });
    const { stdout } = await cli('keys.ts', ['create', '--partner', `signed-crash-${name}`]);
    ({ apiKey, projectId } = JSON.parse(stdout.trim()) as { apiKey: string; projectId: string });
    // Metered transfers: every transfer reserves its spend, which becomes spent with its signature.
    const meter = (id: string, walletType: string, meterName: string, selector: Record<string, unknown> = {}) =>
      guardrail(id, walletType, [{ id: 'daily', effect: 'deny', actions: 'all', condition: { aggregate: { meter: meterName, window: '1d' }, op: 'gt', value: '1000000000000000000000' } }], selector);
    const policies = [meter('evm-native', 'EVM', 'spend.native', { chainId: [String(EVM_CHAIN)] }), meter('evm-token', 'EVM', 'spend.token', { chainId: [String(EVM_CHAIN)] }), meter('solana-native', 'SOLANA', 'spend.native')];
    for (const policy of policies) {
      const file = path.join(dataDir, `${policy.id}.json`);
      writeFileSync(file, JSON.stringify(policy));
      await cli('policies.ts', ['apply', '--project-id', projectId, '--env', 'development', '--file', file]);
    }
    if (sponsored) await cli('sponsorship.ts', ['enable', '--project-id', projectId, '--env', 'development']);
  }

  const call = checkedServiceCalls(() => apiKey);

  /** Starts the (only) service process, optionally with a crash point. */
  async function start(crashAt?: string) {
    service = await spawnService({ ...env, ...(crashAt ? { CRASH_AT: crashAt } : {}) }, children);
    return service;
  }
  async function stop() {
    if (!service) return;
    const child = service.child;
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited(child);
    service = undefined;
  }

  async function wallet(type: 'EVM' | 'SOLANA', name: string) {
    const created = await call(service!.url, 'POST', '/v1/wallets', { type, userIdentifier: `signed-crash-${name}-${Date.now()}`, userIdentifierType: 'CUSTOM_ID' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as { id: string; address: string };
  }

  /** The wallet's signatures as the database holds them (read while no service process runs). */
  const traceOf = (walletId: string, signedRecord: string): Promise<SignatureTrace> =>
    withDatabase(async (db) => {
      const count = async (sql: string) => Number((await db.query<{ n: string }>(sql, [walletId]))[0]!.n);
      return {
        records: await count(`SELECT count(*) AS n FROM transaction_records WHERE wallet_id = $1::uuid AND ${signedRecord}`),
        audit: await count(`SELECT count(*) AS n FROM audit_log WHERE wallet_id = $1::uuid AND action LIKE 'wallet.sign.%'`),
        events: await count(`SELECT count(*) AS n FROM events WHERE type = 'transaction.signed' AND data->>'walletId' = $1`),
        deliveries: await count(`SELECT count(*) AS n FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.type = 'transaction.signed' AND e.data->>'walletId' = $1`),
        spent: await count(`SELECT count(*) AS n FROM policy_spend_reservations r WHERE r.status = 'spent' AND EXISTS (SELECT 1 FROM jsonb_array_elements(r.charges) c WHERE c->>'walletId' = $1)`),
      };
    });

  /** All of a signature's rows exist, or none does (a webhook delivery only ever comes from an event). */
  function expectAllOrNone(trace: SignatureTrace, metered: boolean) {
    const signed = trace.records;
    expect(signed === 0 || signed === 1, JSON.stringify(trace)).toBe(true);
    expect(trace, 'signed and recorded are one commit').toEqual({ records: signed, audit: signed, events: signed, deliveries: trace.deliveries, spent: metered ? signed : 0 });
    expect(trace.deliveries).toBeLessThanOrEqual(trace.events);
  }

  async function confirmed(walletId: string, transactionId: string) {
    let record: any;
    await expect
      .poll(async () => (record = (await call(service!.url, 'GET', `/v1/wallets/${walletId}/transactions/${transactionId}`)).body).status, { timeout: 90_000, interval: 250 })
      .toBe('confirmed');
    return record;
  }

  /** Killed at `signed` while answering a transfer; the retry with the same key answers 200 with one record. */
  async function transferScenario(type: 'EVM' | 'SOLANA', body: (recipient: string) => Record<string, unknown>, fund: (address: string) => Promise<unknown>) {
    await setUp(type.toLowerCase());
    await start('signed');
    const from = await wallet(type, `${type}-from`);
    const to = type === 'EVM' ? { address: privateKeyToAccount(generatePrivateKey()).address } : await wallet(type, `${type}-to`);
    await fund(from.address);
    const key = `signed-crash-${type}-${Date.now()}`;
    const doomed = service!;
    await expect(call(doomed.url, 'POST', `/v1/wallets/${from.id}/transfer`, body(to.address), key)).rejects.toThrow();
    expect(await exited(doomed.child)).toBe('SIGKILL');
    service = undefined;
    expectAllOrNone(await traceOf(from.id, 'true'), true);

    await start();
    const retried = await call(service!.url, 'POST', `/v1/wallets/${from.id}/transfer`, body(to.address), key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const again = await call(service!.url, 'POST', `/v1/wallets/${from.id}/transfer`, body(to.address), key);
    expect(again.body.transactionId).toBe(retried.body.transactionId);
    await confirmed(from.id, retried.body.transactionId);
    const records = (await call(service!.url, 'GET', `/v1/wallets/${from.id}/transactions`)).body.data as { transactionId: string }[];
    expect(records.map((r) => r.transactionId)).toEqual([retried.body.transactionId]);
    await stop();
    expect(await traceOf(from.id, 'true')).toMatchObject({ records: 1, audit: 1, events: 1, spent: 1 });
  }

  it('an EVM transfer', { timeout: 180_000 }, async () => {
    await transferScenario('EVM', (to) => ({ to, value: '1001', chainId: EVM_CHAIN }), (address) => devnets.faucet.fund({ type: 'EVM', address }, 'native', 10n ** 18n));
  });

  it('a Solana transfer', { timeout: 180_000 }, async () => {
    await transferScenario('SOLANA', (to) => ({ to, value: '1000000', network: SOLANA }), (address) => devnets.faucet.fund({ type: 'SOLANA', address }, 'native', 10n ** 9n));
  });

  it('a sponsored transfer', { timeout: 180_000 }, async () => {
    await setUp('sponsored', { sponsored: true });
    try {
      await start('signed');
      const from = await wallet('EVM', 'sponsored');
      await devnets.faucet.fund({ type: 'EVM', address: from.address }, 'usdc', 20n * USDC);
      const body = { to: privateKeyToAccount(generatePrivateKey()).address, value: (4n * USDC).toString(), chainId: EVM_CHAIN, tokenAddress: usdc };
      const key = `signed-crash-sponsored-${Date.now()}`;
      const doomed = service!;
      const accepted = await call(doomed.url, 'POST', `/v1/wallets/${from.id}/transfer`, body, key);
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
      // The worker signs the user operation and the process dies before it is stored.
      expect(await exited(doomed.child)).toBe('SIGKILL');
      service = undefined;
      expectAllOrNone(await traceOf(from.id, 'user_operation IS NOT NULL'), true);

      await start();
      const replayed = await call(service!.url, 'POST', `/v1/wallets/${from.id}/transfer`, body, key);
      expect(replayed.status).toBe(202);
      expect(replayed.body.transactionId).toBe(accepted.body.transactionId);
      await confirmed(from.id, accepted.body.transactionId);
      const records = (await call(service!.url, 'GET', `/v1/wallets/${from.id}/transactions`)).body.data as { transactionId: string }[];
      expect(records.map((r) => r.transactionId)).toEqual([accepted.body.transactionId]);
      await stop();
      // The wallet's delegation (its first sponsored transfer) is signed and audited too, without spend.
      const trace = await traceOf(from.id, 'user_operation IS NOT NULL');
      expect(trace).toMatchObject({ records: 1, spent: 1 });
      expect(trace.audit).toBe(trace.events);
      expect(await withDatabase(async (db) => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM audit_log WHERE wallet_id = $1::uuid AND action = 'wallet.sign.transfer'`, [from.id]))[0]!.n))).toBe(1);
    } finally {
      await stop();
    }
  });

  it('a yield step', { timeout: 180_000 }, async () => {
    await setUp('yield');
    await start('signed');
    const from = await wallet('EVM', 'yield');
    await devnets.faucet.fund({ type: 'EVM', address: from.address }, 'native', 10n ** 18n);
    await devnets.faucet.fund({ type: 'EVM', address: from.address }, 'usdc', 50n * USDC);
    const body = { marketId: VAULT_MARKET, amount: '30' };
    const key = `signed-crash-yield-${Date.now()}`;
    const doomed = service!;
    const accepted = await call(doomed.url, 'POST', `/v1/wallets/${from.id}/yield/deposits`, body, key);
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    // The worker signs the approval step and the process dies before its record is stored.
    expect(await exited(doomed.child)).toBe('SIGKILL');
    service = undefined;
    expectAllOrNone(await traceOf(from.id, 'true'), false);

    await start();
    const replayed = await call(service!.url, 'POST', `/v1/wallets/${from.id}/yield/deposits`, body, key);
    expect(replayed.status).toBe(202);
    expect(replayed.body.id).toBe(accepted.body.id);
    await expect
      .poll(async () => (await call(service!.url, 'GET', `/v1/wallets/${from.id}/yield/operations/${accepted.body.id}`)).body.status, { timeout: 90_000, interval: 250 })
      .toBe('confirmed');
    const steps = (await call(service!.url, 'GET', `/v1/wallets/${from.id}/yield/operations/${accepted.body.id}`)).body.transactions as { phase: string; status: string; nonce: number }[];
    expect(steps.map((s) => [s.phase, s.status, s.nonce])).toEqual([
      ['approval', 'confirmed', 0],
      ['action', 'confirmed', 1],
    ]);
    await stop();
    // One signature per step, each with its record and event.
    expect(await traceOf(from.id, 'true')).toMatchObject({ records: 2, audit: 2, events: 2, spent: 0 });
  });
});
