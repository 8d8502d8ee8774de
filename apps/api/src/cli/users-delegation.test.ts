import { testDatabaseKinds } from '@wallet/db';
import { afterAll, describe, expect, it } from 'vitest';
import { cliOnPostgres } from '../testing/cli-postgres.ts';
import { delegationPolicy } from '../testing/delegation-fixtures.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** `npm run users -- consent | set-parameter`, as processes on PostgreSQL: one JSON line each, or the error object on stderr and exit code 1. */
describe('npm run users -- consent | set-parameter, as processes', () => {
  if ((testDatabaseKinds as readonly string[]).includes('postgres')) it('consents for a claimed wallet and saves a parameter value, one JSON line each', async () => {
    const { services, issued, caller, operator, users } = await cliOnPostgres('users-delegation-cli', cleanups);
    await services.policies.apply(operator, delegationPolicy());
    const wallet = await services.wallets.create(caller, { type: 'EVM', userIdentifier: 'cli@example.com', userIdentifierType: 'EMAIL' });
    const { userId } = await services.users.signUp({ projectId: issued.projectId, identifier: 'cli@example.com', identifierType: 'EMAIL' });

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
