import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import type { ApiError } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consentsPath, delegationPolicy, delegationProject, parametersPath } from '../testing/delegation-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { DEAD, EVM_CHAIN, EVM_FEES, examplePolicy } from '../testing/policy-fixtures.ts';

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const unavailable = { code: 'PERMISSIONS_V2_EXTENSION_UNAVAILABLE', message: expect.stringContaining('not enabled') };
const failure = (promise: Promise<unknown>) => promise.then(() => null, (e: unknown) => e as ApiError);

describe.each(testDatabaseKinds)('delegation consents and user parameters over HTTP on %s', (kind) => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(async () => {
    await app.close();
  });

  it('lists consent requests of a user wallet, follows consent, a new version and revocation, and hides what is not the partner user wallet', async () => {
    const project = await delegationProject(app);
    const { userId, walletId } = await project.owner();
    // Permissions not set up: no requests; the wallet context is required.
    expect((await project.get(consentsPath(userId, walletId))).body).toEqual({ requests: [] });
    const noWallet = await project.get(`/v1/permissions-v2/users/${userId}/delegation-consents`);
    expect(noWallet.status).toBe(400);
    expect(noWallet.body).toMatchObject({ code: 'INVALID_REQUEST', details: [{ path: 'walletId' }] });

    await project.apply(delegationPolicy());
    await project.apply(examplePolicy('evm-guardrails.json'));
    await project.apply(delegationPolicy('other-wallets', { walletType: 'EVM', walletId: [randomUUID()] }));
    const pending = await project.get(consentsPath(userId, walletId));
    expect(pending.status).toBe(200);
    const policy = { policyId: 'user-limits', version: '1', description: 'Limits the user agrees to and may adjust', walletType: 'EVM', definition: delegationPolicy() };
    const none = { walletId, status: 'pending', inForce: false, consentedVersion: null, consentedAt: null, revokedAt: null, updatedAt: null };
    expect(pending.body).toEqual({ requests: [{ policy, consent: none }] });

    const given = await app.services.delegation.consent({ userId, walletId, policyId: 'user-limits' });
    const standing = { walletId, status: 'standing', inForce: true, consentedVersion: '1', consentedAt: iso, revokedAt: null, updatedAt: iso };
    expect(given).toEqual({ userId, policy, consent: standing });
    expect((await project.get(consentsPath(userId, walletId))).body).toEqual({ requests: [{ policy, consent: standing }] });
    expect((await project.get(consentsPath(userId, walletId, 'user-limits'))).body).toEqual({ policy, consent: standing });

    // A new version is a new authorization context: the consent no longer covers it until renewed.
    await project.apply({ ...delegationPolicy(), version: '2' });
    expect((await project.get(consentsPath(userId, walletId, 'user-limits'))).body.consent).toMatchObject({ status: 'outdated', inForce: false, consentedVersion: '1' });
    await app.services.delegation.consent({ userId, walletId, policyId: 'user-limits' });
    expect((await project.get(consentsPath(userId, walletId, 'user-limits'))).body.consent).toMatchObject({ status: 'standing', inForce: true, consentedVersion: '2' });
    const revoked = await app.services.delegation.revokeConsent({ userId, walletId, policyId: 'user-limits' });
    expect(revoked.consent).toMatchObject({ status: 'revoked', inForce: false, consentedVersion: '2', revokedAt: iso });
    expect((await project.get(consentsPath(userId, walletId))).body.requests[0].consent).toEqual(revoked.consent);

    // The guardrail policy takes no consent; an unknown policy is 404.
    const guardrail = await project.get(consentsPath(userId, walletId, 'evm-guardrails'));
    expect(guardrail.status).toBe(400);
    expect(guardrail.body.message).toMatch(/guardrail policy/);
    expect((await project.get(consentsPath(userId, walletId, 'nope'))).status).toBe(404);
    expect((await failure(app.services.delegation.consent({ userId, walletId, policyId: 'other-wallets' })))?.message).toMatch(/does not apply to wallet/);

    // Another partner's user, another user's wallet, an app-owned wallet: 404 like missing ones.
    const other = await delegationProject(app);
    const stranger = await other.owner();
    const missingUser = await project.get(consentsPath(randomUUID(), walletId));
    expect(missingUser.status).toBe(404);
    expect((await project.get(consentsPath(stranger.userId, walletId))).body).toEqual(missingUser.body);
    const neighbour = await project.owner();
    const appWallet = await project.wallet('EVM');
    const missingWallet = await project.get(consentsPath(userId, randomUUID()));
    expect(missingWallet.body).toEqual({ code: 'NOT_FOUND', message: 'Wallet not found' });
    for (const id of [neighbour.walletId, appWallet.id, stranger.walletId, 'not-a-uuid']) expect((await project.get(consentsPath(userId, id))).body).toEqual(missingWallet.body);
    // The user side may not consent for a wallet the user does not own either.
    expect((await failure(app.services.delegation.consent({ userId, walletId: appWallet.id, policyId: 'user-limits' })))?.status).toBe(404);

    // Delegation policies never act as guardrails on app-owned wallets (2000 > the default cap 1000).
    const signed = await project.post(`/v1/wallets/${appWallet.id}/sign-transaction`, { transaction: { to: DEAD, value: '2000', chainId: EVM_CHAIN, type: 2, nonce: 0, ...EVM_FEES } });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    // No REST write routes: the partner key cannot consent.
    expect((await project.post(consentsPath(userId, walletId, 'user-limits'), {})).status).toBe(404);
    const openapi = (await app.request('GET', '/v1/openapi.json')).body;
    for (const path of ['delegation-consents', 'delegation-consents/{policyId}', 'user-parameters', 'user-parameters/{policyId}', 'user-parameters/{policyId}/history']) {
      expect(Object.keys(openapi.paths[`/v1/permissions-v2/users/{userId}/${path}`])).toEqual(['get']);
    }
  });

  it('gates user parameters on the extension, keeps saved values within min/max as revisions, and pages their history', async () => {
    const project = await delegationProject(app);
    const { userId, walletId } = await project.owner();
    await project.apply(delegationPolicy());
    const one = parametersPath(userId, 'user-limits', walletId);
    for (const path of [parametersPath(userId), one, parametersPath(userId, 'user-limits', walletId, '/history'), parametersPath(randomUUID(), 'x')]) {
      const refused = await project.get(path);
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(unavailable);
    }
    const save = (parameter: string, value: string, expectedRevision?: number) =>
      app.services.delegation.setParameter({ userId, walletId, policyId: 'user-limits', parameter, value, ...(expectedRevision === undefined ? {} : { expectedRevision }) });
    expect(await failure(save('daily', '7000'))).toMatchObject({ status: 403, code: 'PERMISSIONS_V2_EXTENSION_UNAVAILABLE' });

    await project.enable();
    const declarations = [
      { id: 'per-transfer', label: 'Per transfer', default: '1000', min: '10', max: '100000', ruleId: 'per-transfer', limit: { kind: 'compare', fact: 'request.value.baseUnits', op: 'gt' } },
      { id: 'daily', label: 'Per day', default: '5000', min: null, max: null, ruleId: 'daily', limit: { kind: 'aggregate', meter: 'spend.native', window: '1d', asset: null, op: 'gt' } },
    ];
    const listed = await project.get(parametersPath(userId));
    expect(listed.status).toBe(200);
    const summary = { policyId: 'user-limits', version: '1', description: 'Limits the user agrees to and may adjust', walletType: 'EVM' };
    expect(listed.body).toEqual({ policies: [{ policy: summary, walletId, revision: 0, parameters: declarations }] });
    expect((await project.get(parametersPath(userId, undefined, walletId))).body).toEqual(listed.body);
    expect((await project.get(one)).body).toEqual({
      userId, walletId, policyId: 'user-limits', policyVersion: '1', revision: 0, updatedAt: null, values: {},
      parameters: declarations.map((d) => ({ ...d, value: null, effective: d.default })),
    });

    expect(await save('per-transfer', '50000')).toMatchObject({ revision: 1, values: { 'per-transfer': '50000' } });
    const second = await save('daily', '7000', 1);
    expect(second).toMatchObject({ revision: 2, values: { 'per-transfer': '50000', daily: '7000' }, updatedAt: iso });
    expect((await project.get(one)).body).toEqual(second);
    expect(second.parameters.map((p) => [p.value, p.effective])).toEqual([['50000', '50000'], ['7000', '7000']]);

    // Refusals write nothing: a stale revision, values outside min/max, an unknown parameter.
    expect(await failure(save('daily', '8000', 1))).toMatchObject({ status: 409, code: 'CONFLICT', extra: { currentRevision: 2 } });
    expect((await failure(save('per-transfer', '9')))?.message).toMatch(/value: 9 is below the minimum 10 of parameter per-transfer \(allowed: 10..100000\)/);
    expect((await failure(save('per-transfer', '100001')))?.message).toMatch(/above the maximum 100000/);
    expect((await failure(save('per-transfer', '1.5')))?.status).toBe(400);
    expect((await failure(save('weekly', '1')))?.message).toMatch(/declares no parameter "weekly" \(it declares: per-transfer, daily\)/);
    expect((await project.get(one)).body.revision).toBe(2);

    const history = await project.get(parametersPath(userId, 'user-limits', walletId, '/history'));
    const by = { type: 'user', id: userId };
    expect(history.body).toEqual({
      data: [
        { revision: 2, policyVersion: '1', values: { 'per-transfer': '50000', daily: '7000' }, createdAt: iso, createdBy: by },
        { revision: 1, policyVersion: '1', values: { 'per-transfer': '50000' }, createdAt: iso, createdBy: by },
      ],
      pagination: { cursor: null, hasMore: false, limit: 50 },
    });
    // Revision rows are history: the database refuses to change them.
    const update = app.database.prisma.$executeRawUnsafe(`UPDATE user_parameter_revisions SET "values" = '{}' WHERE user_id = $1::uuid`, userId);
    await expect(update).rejects.toThrow(/never updated or deleted|External error/);
    expect(await app.database.prisma.userParameterRevision.count({ where: { userId, values: { equals: {} } } })).toBe(0);
    expect(await app.database.prisma.$queryRawUnsafe(`SELECT tgname FROM pg_trigger WHERE tgrelid = 'user_parameter_revisions'::regclass AND NOT tgisinternal`)).toEqual([{ tgname: 'user_parameter_revisions_append_only' }]);
    const page1 = await project.get(`${parametersPath(userId, 'user-limits', walletId, '/history')}&limit=1`);
    expect(page1.body.pagination).toMatchObject({ hasMore: true, limit: 1 });
    const page2 = await project.get(`${parametersPath(userId, 'user-limits', walletId, '/history')}&limit=1&cursor=${page1.body.pagination.cursor}`);
    expect(page2.body.data.map((r: { revision: number }) => r.revision)).toEqual([1]);
    expect((await project.get(`${parametersPath(userId, 'user-limits', walletId, '/history')}&cursor=bogus`)).status).toBe(400);

    // A narrower new version keeps saved values readable but applies the default where they no longer fit.
    await project.apply({ ...delegationPolicy(), version: '2', rules: [{ ...delegationPolicy().rules[0], condition: { ...delegationPolicy().rules[0]!.condition, parameter: { id: 'per-transfer', label: 'Per transfer', max: '20000' } } }] });
    const narrowed = (await project.get(one)).body;
    expect(narrowed).toMatchObject({ policyVersion: '2', revision: 2, values: { 'per-transfer': '50000', daily: '7000' } });
    expect(narrowed.parameters).toEqual([expect.objectContaining({ id: 'per-transfer', value: '50000', effective: '1000', max: '20000' })]);

    // Another partner's user is the same 404 as a missing one, on every parameters route.
    const other = await delegationProject(app);
    await other.enable();
    for (const path of [parametersPath(userId), one, parametersPath(userId, 'user-limits', walletId, '/history')]) {
      const foreign = await other.get(path);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual({ code: 'NOT_FOUND', message: 'User not found' });
    }
  });
});
