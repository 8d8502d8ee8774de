import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase, openDatabase, testDatabaseKinds } from '@wallet/db';
import { callerOf } from '@wallet/domain';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, repoRoot } from '../config.ts';
import { createServices } from '../services.ts';
import { delegationPolicy } from '../testing/delegation-fixtures.ts';

const run = promisify(execFile);
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** `npm run users -- consent | set-parameter`, as processes on PostgreSQL: one JSON line each, or the error object on stderr and exit code 1. */
describe('npm run users -- consent | set-parameter, as processes', () => {
  if ((testDatabaseKinds as readonly string[]).includes('postgres')) it('consents for a claimed wallet and saves a parameter value, one JSON line each', async () => {
    const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 'd');
    cleanups.push(scratch.drop);
    const dir = mkdtempSync(path.join(tmpdir(), 'wallet-users-delegation-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const env: Record<string, string> = { ...(process.env as Record<string, string>), APP_ENV: 'local', DATA_DIR: dir, DATABASE_URL: scratch.url, LOCAL_DEVNETS: 'off' };
    delete env.INIT_CWD;

    const database = await openDatabase({ databaseUrl: scratch.url });
    const services = await createServices(loadConfig({ APP_ENV: 'local', DATA_DIR: dir }), { database });
    cleanups.push(async () => {
      await services.close();
      await database.close();
    });
    const issued = await services.apiKeys.create({ partner: 'users-delegation-cli', plan: 'scale', rateLimitPerMinute: 0, environment: 'development' });
    const caller = callerOf(await services.apiKeys.authenticate(issued.apiKey, '127.0.0.1'), null);
    const operator = await services.policies.operatorScope(issued.projectId, 'development');
    await services.permissionsExtension.set(operator, true);
    await services.policies.apply(operator, delegationPolicy());
    const wallet = await services.wallets.create(caller, { type: 'EVM', userIdentifier: 'cli@example.com', userIdentifierType: 'EMAIL' });
    const { userId } = await services.users.signUp({ projectId: issued.projectId, identifier: 'cli@example.com', identifierType: 'EMAIL' });

    const users = (args: string[]) => run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/users.ts', ...args], { cwd: repoRoot, env });
    const subject = ['--user-id', userId, '--wallet-id', wallet.id, '--policy-id', 'user-limits'];
    // Two processes at once (tsx start-up dominates); refusals (min/max, ownership) are covered over HTTP in user-permissions.test.ts.
    const [consent, saved] = await Promise.all([
      users(['consent', ...subject]),
      users(['set-parameter', ...subject, '--parameter', 'per-transfer', '--value', '25000', '--expected-revision', '0']),
    ]);
    for (const { stdout } of [consent, saved]) expect(stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(consent.stdout)).toMatchObject({ userId, policy: { policyId: 'user-limits', version: '1' }, consent: { walletId: wallet.id, status: 'standing', inForce: true } });
    expect(JSON.parse(saved.stdout)).toMatchObject({ revision: 1, values: { 'per-transfer': '25000' }, parameters: [{ id: 'per-transfer', value: '25000', effective: '25000' }, { id: 'daily', value: null }] });
    expect((await services.delegation.getConsent(caller, userId, 'user-limits', { walletId: wallet.id })).consent.status).toBe('standing');
    expect((await services.delegation.getParameters(caller, userId, 'user-limits', { walletId: wallet.id })).revision).toBe(1);
  });
});
