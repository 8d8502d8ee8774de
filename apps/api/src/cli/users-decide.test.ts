import { testDatabaseKinds } from '@wallet/db';
import { ApiError } from '@wallet/domain';
import { afterAll, describe, expect, it } from 'vitest';
import { LARGE } from '../testing/approval-fixtures.ts';
import { cliOnPostgres } from '../testing/cli-postgres.ts';
import { DEAD, EVM_CHAIN, EVM_FEES, examplePolicy } from '../testing/policy-fixtures.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** `npm run users -- approve|reject`, as processes on PostgreSQL: one JSON line (the case), or the error object on stderr and exit code 1. */
describe('npm run users -- approve | reject, as a process', () => {
  if ((testDatabaseKinds as readonly string[]).includes('postgres')) it('approves as an eligible user, refuses the initiator, and prints the case', async () => {
    // The case, opened in this process on the database the CLI opens too.
    const { services, issued, caller, operator, users } = await cliOnPostgres('users-cli', cleanups);
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
