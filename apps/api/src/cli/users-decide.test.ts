import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase, openDatabase, testDatabaseKinds } from '@wallet/db';
import { ApiError, callerOf } from '@wallet/domain';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, repoRoot } from '../config.ts';
import { createServices } from '../services.ts';
import { LARGE } from '../testing/approval-fixtures.ts';
import { DEAD, EVM_CHAIN, EVM_FEES, examplePolicy } from '../testing/policy-fixtures.ts';

const run = promisify(execFile);
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** `npm run users -- approve|reject`, as processes on PostgreSQL: one JSON line (the case), or the error object on stderr and exit code 1. */
describe('npm run users -- approve | reject, as a process', () => {
  if ((testDatabaseKinds as readonly string[]).includes('postgres')) it('approves as an eligible user, refuses the initiator, and prints the case', async () => {
    const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 'u');
    cleanups.push(scratch.drop);
    const dir = mkdtempSync(path.join(tmpdir(), 'wallet-users-cli-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const env: Record<string, string> = { ...(process.env as Record<string, string>), APP_ENV: 'local', DATA_DIR: dir, DATABASE_URL: scratch.url, LOCAL_DEVNETS: 'off' };
    delete env.INIT_CWD;

    // The case, opened in this process on the same database.
    const database = await openDatabase({ databaseUrl: scratch.url });
    const services = await createServices(loadConfig({ APP_ENV: 'local', DATA_DIR: dir }), { database });
    cleanups.push(async () => {
      await services.close();
      await database.close();
    });
    const issued = await services.apiKeys.create({ partner: 'users-cli', plan: 'scale', rateLimitPerMinute: 0, environment: 'development' });
    const caller = callerOf(await services.apiKeys.authenticate(issued.apiKey, '127.0.0.1'), null);
    const operator = await services.policies.operatorScope(issued.projectId, 'development');
    await services.permissionsExtension.set(operator, true);
    await services.policies.apply(operator, examplePolicy('evm-approvals.json'));
    const wallet = await services.wallets.create(caller, { type: 'EVM', userIdentifier: 'cli', userIdentifierType: 'CUSTOM_ID' });
    await services.authorizationScopes.setWalletScope(caller, wallet.id, { expectedRevision: 0, authorizationScopeId: 'org' });
    const user = async (roles: string[]) => {
      const { userId } = await services.users.signUp({ projectId: issued.projectId, identifier: `${Math.random()}@example.com`, identifierType: 'EMAIL' });
      await services.authorizationScopes.replaceAssignments(caller, 'org', userId, { expectedRevision: 0, assignments: roles.map((role) => ({ role })) });
      return userId;
    };
    const finance = await user(['finance']);
    const initiator = await user(['finance']);
    const paused = await services.signing
      .sign({ ...caller, idempotencyKey: 'cli-1', requestHash: 'h', initiatorUserId: initiator }, wallet.id, 'transaction', { transaction: { to: DEAD, value: LARGE, chainId: EVM_CHAIN, type: 2, nonce: 0, ...EVM_FEES } })
      .catch((error: unknown) => error);
    expect(paused).toBeInstanceOf(ApiError);
    expect((paused as ApiError).code).toBe('POLICY_REVIEW_REQUIRED');
    const caseId = (paused as ApiError).extra.caseId as string;

    const users = (args: string[]) => run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/users.ts', ...args], { cwd: repoRoot, env });
    const refused = (await users(['approve', '--case-id', caseId, '--user-id', initiator]).then(
      () => null,
      (e: unknown) => e,
    )) as { code: number; stdout: string; stderr: string } | null;
    expect(refused?.code).toBe(1);
    expect(refused!.stdout).toBe('');
    expect(JSON.parse(refused!.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'INITIATOR_CANNOT_REVIEW' });

    const { stdout } = await users(['approve', '--case-id', caseId, '--user-id', finance]);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ caseId, status: 'completed', stages: [{ id: 'finance', approvals: [{ userId: finance }] }] });
    expect((await services.approvalCases.get(caller, caseId)).status).toBe('completed');
  });
});
