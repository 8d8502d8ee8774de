import { readFileSync } from 'node:fs';
import path from 'node:path';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../config.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

const example = JSON.parse(readFileSync(path.resolve(repoRoot, '../shared/spec/policy-examples/evm-guardrails.json'), 'utf8')) as Record<string, unknown>;

describe.each(testDatabaseKinds)('policy read routes over HTTP on %s', (kind) => {
  let app: TestApp;
  let partner: string;
  let devKey: { apiKey: string; projectId: string };

  beforeAll(async () => {
    app = await startTestApp(kind);
    partner = `partner-${Math.random().toString(36).slice(2)}`;
    devKey = await app.createKey({ partner, project: 'shop' });
    const scope = await app.services.policies.operatorScope(devKey.projectId, 'development');
    await app.services.policies.apply(scope, example);
    await app.services.policies.apply(scope, { ...example, metadata: { productMode: 'guardrail', description: 'second version' } });
  });
  afterAll(async () => {
    await app.close();
  });

  const get = (urlPath: string, key: string) => app.request('GET', urlPath, { key });

  it('lists the active version of each policy, gets one, and lists its versions newest first', async () => {
    const list = await get('/v1/permissions-v2/policies', devKey.apiKey);
    expect(list.status).toBe(200);
    expect(list.body.policies.map((p: { policyId: string; version: string; status: string }) => [p.policyId, p.version, p.status])).toEqual([
      ['evm-guardrails', '2', 'active'],
    ]);
    const one = await get('/v1/permissions-v2/policies/evm-guardrails', devKey.apiKey);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ policyId: 'evm-guardrails', version: '2', environment: 'development', walletType: 'EVM' });
    expect(one.body.definition).toMatchObject({ id: 'evm-guardrails', version: '2', metadata: { description: 'second version' } });
    const versions = await get('/v1/permissions-v2/policies/evm-guardrails/versions', devKey.apiKey);
    expect(versions.status).toBe(200);
    expect(versions.body.versions.map((v: { version: string; status: string; replacedBy: string | null }) => [v.version, v.status, v.replacedBy])).toEqual([
      ['2', 'active', null],
      ['1', 'inactive', '2'],
    ]);
  });

  it("never shows another partner's or the production environment's policies: the same 404 as a missing one", async () => {
    const missing = await get('/v1/permissions-v2/policies/no-such-policy', devKey.apiKey);
    expect(missing.status).toBe(404);
    const prodKey = await app.services.apiKeys.create({ partner, project: 'shop', environment: 'production', plan: 'scale', rateLimitPerMinute: 0 });
    const stranger = await app.createKey();
    for (const key of [prodKey.apiKey, stranger.apiKey]) {
      expect((await get('/v1/permissions-v2/policies', key)).body).toEqual({ policies: [] });
      const foreign = await get('/v1/permissions-v2/policies/evm-guardrails', key);
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(missing.body);
      expect((await get('/v1/permissions-v2/policies/evm-guardrails/versions', key)).body).toEqual(missing.body);
    }
  });

  it('documents the permissions routes in the OpenAPI document', async () => {
    const spec = await app.request('GET', '/v1/openapi.json');
    expect(Object.keys(spec.body.paths).filter((p) => p.startsWith('/v1/permissions-v2/'))).toEqual([
      '/v1/permissions-v2/policies',
      '/v1/permissions-v2/policies/{policyId}',
      '/v1/permissions-v2/policies/{policyId}/versions',
      '/v1/permissions-v2/wallets/{walletId}/policies/{policyId}/usage',
      '/v1/permissions-v2/users/{userId}/policies/{policyId}/usage',
      '/v1/permissions-v2/evaluate',
      '/v1/permissions-v2/authorization-scopes/{authorizationScopeId}/users/{userId}/assignments',
      '/v1/permissions-v2/authorization-scopes/{authorizationScopeId}/users/{userId}/assignments/history',
      '/v1/permissions-v2/authorization-scopes/{authorizationScopeId}/members',
      '/v1/permissions-v2/wallets/{walletId}/authorization-scope',
      '/v1/permissions-v2/wallets/{walletId}/authorization-scope/history',
      '/v1/permissions-v2/authorization-scopes/{authorizationScopeId}/requirements',
      '/v1/permissions-v2/authorization-scopes/{authorizationScopeId}/policies/{policyId}/versions/{policyVersion}/requirements/{requirementId}',
      '/v1/permissions-v2/authorization-scopes/{authorizationScopeId}/policies/{policyId}/versions/{policyVersion}/requirements/{requirementId}/configuration',
      '/v1/permissions-v2/authorization-scopes/{authorizationScopeId}/policies/{policyId}/versions/{policyVersion}/requirements/{requirementId}/configuration/effective',
      '/v1/permissions-v2/authorization-scopes/{authorizationScopeId}/policies/{policyId}/versions/{policyVersion}/requirements/{requirementId}/configuration/history',
      '/v1/permissions-v2/approval-cases',
      '/v1/permissions-v2/approval-cases/{caseId}',
      '/v1/permissions-v2/approval-cases/{caseId}/cancel',
      '/v1/permissions-v2/reviews',
      '/v1/permissions-v2/reviews/{reviewId}',
      '/v1/permissions-v2/reviews/{reviewId}/approve',
      '/v1/permissions-v2/reviews/{reviewId}/reject',
      '/v1/permissions-v2/users/{userId}/delegation-consents',
      '/v1/permissions-v2/users/{userId}/delegation-consents/{policyId}',
      '/v1/permissions-v2/users/{userId}/user-parameters',
      '/v1/permissions-v2/users/{userId}/user-parameters/{policyId}',
      '/v1/permissions-v2/users/{userId}/user-parameters/{policyId}/history',
    ]);
    const assignments = spec.body.paths['/v1/permissions-v2/authorization-scopes/{authorizationScopeId}/users/{userId}/assignments'];
    expect(Object.keys(assignments)).toEqual(['get', 'put']);
    expect(assignments.put.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
    expect(spec.body.components.schemas.ReplaceAssignmentsBody.properties.expectedRevision).toBeDefined();
    const configuration = spec.body.paths['/v1/permissions-v2/authorization-scopes/{authorizationScopeId}/policies/{policyId}/versions/{policyVersion}/requirements/{requirementId}/configuration'];
    expect(Object.keys(configuration)).toEqual(['get', 'put']);
    expect(configuration.put.parameters.map((p: { name: string }) => p.name)).toContain('Idempotency-Key');
    expect(Object.keys(spec.body.components.schemas.ApprovalConfigurationBody.properties)).toEqual(['expectedRevision', 'values', 'force']);
    expect(spec.body.components.schemas.Policy.properties.definition).toBeDefined();
    expect(spec.body.components.schemas.PolicyUsage).toBeDefined();
    expect(spec.body.components.schemas.PolicyDryRunResult.properties.deniedBy).toBeDefined();
    expect(spec.body.components.schemas.PolicyDryRunResult.properties.requirements).toBeDefined();
    expect(spec.body.components.schemas.ApprovalCase.properties.stages).toBeDefined();
    expect(spec.body.components.schemas.ApprovalCaseList.properties.nextBeforeCaseId).toBeDefined();
    expect(Object.keys(spec.body.paths['/v1/permissions-v2/approval-cases/{caseId}/cancel'])).toEqual(['post']);
    expect(spec.body.components.schemas.PartnerReview.properties.approvedAt).toBeDefined();
    expect(Object.keys(spec.body.paths['/v1/permissions-v2/reviews/{reviewId}/approve'])).toEqual(['post']);
  });
});
