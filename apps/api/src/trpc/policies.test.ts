import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePartner, restWallet } from '../testing/console-fixtures.ts';
import { traces } from '../testing/policy-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { trpcFailure } from '../testing/staff-client.ts';

type Partner = Awaited<ReturnType<typeof consolePartner>>;

const FORBIDDEN = { status: 403, body: { code: 'FORBIDDEN', message: 'Support staff have read-only access' } };
const capPolicy = (id: string, cap = '1000') => ({
  id,
  schemaVersion: 'permissions.policy.v1',
  version: '1',
  selector: { walletType: 'EVM', chainId: ['84532'] },
  metadata: { productMode: 'guardrail' },
  rules: [{ id: 'cap', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.value.baseUnits', op: 'gt', value: cap } }],
});

const OTHER = '0x1111111111111111111111111111111111111111';
const evmTx = (value: string, nonce = 0) => ({
  transaction: { to: OTHER, value, chainId: 84532, nonce, maxFeePerGas: '20000000000', maxPriorityFeePerGas: '1000000000', gasLimit: '21000' },
});

describe.each(testDatabaseKinds)('policy authoring over tRPC on %s', (kind) => {
  let app: TestApp;
  let a: Partner;
  let b: Partner;
  const passwords: string[] = [];

  beforeAll(async () => {
    app = await startTestApp(kind);
    [a, b] = await Promise.all([consolePartner(app, passwords), consolePartner(app, passwords)]);
  });
  afterAll(async () => {
    const logs = app.logLines.join('');
    for (const secret of [...app.secrets(), ...passwords]) expect(logs).not.toContain(secret);
    await app.close();
  });

  const location = () => ({ projectId: a.key.projectId, environment: 'development' as const });

  it('owners and developers apply (version 1, then 2) and deactivate; every role reads list, get and versions', async () => {
    const id = `cap-${randomUUID().slice(0, 8)}`;
    const first = await a.owner.policies.activate.mutate({ ...location(), document: capPolicy(id) });
    expect(first).toMatchObject({ policyId: id, version: '1', status: 'active', environment: 'development', walletType: 'EVM' });
    const second = await a.developer.policies.activate.mutate({ ...location(), document: capPolicy(id, '2000') });
    expect(second).toMatchObject({ version: '2', status: 'active', definition: { version: '2' } });

    const listed = await a.support.policies.list.query(location());
    expect(listed.policies.filter((p) => p.policyId === id).map((p) => p.version)).toEqual(['2']);
    expect(await a.support.policies.get.query({ ...location(), policyId: id })).toEqual(second);
    const versions = await a.support.policies.versions.query({ ...location(), policyId: id });
    expect(versions.versions.map((v) => [v.version, v.status, v.replacedBy])).toEqual([
      ['2', 'active', null],
      ['1', 'inactive', '2'],
    ]);
    // Production is another place: nothing there.
    expect((await a.owner.policies.list.query({ ...location(), environment: 'production' })).policies.map((p) => p.policyId)).not.toContain(id);
    // Same id, another wallet type: 409 at selector.
    const conflict = await trpcFailure(a.owner.policies.activate.mutate({ ...location(), document: { ...capPolicy(id), selector: { walletType: 'SOLANA' } } }));
    expect(conflict).toMatchObject({ status: 409, body: { code: 'CONFLICT', details: [{ path: 'selector' }] } });

    const deactivated = await a.developer.policies.deactivate.mutate({ ...location(), policyId: id });
    expect(deactivated).toMatchObject({ version: '2', status: 'inactive', deactivatedBy: { type: 'staff' } });
    expect((await a.owner.policies.list.query(location())).policies.map((p) => p.policyId)).not.toContain(id);
    expect(await trpcFailure(a.owner.policies.deactivate.mutate({ ...location(), policyId: id }))).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
  });

  it('writes audit rows naming the staff member who applied and deactivated', async () => {
    const id = `audited-${randomUUID().slice(0, 8)}`;
    await a.owner.policies.activate.mutate({ ...location(), document: capPolicy(id) });
    await a.developer.policies.deactivate.mutate({ ...location(), policyId: id });
    const owner = (await a.owner.auth.me.query())!.staffId;
    const developer = (await a.developer.auth.me.query())!.staffId;
    const rows = await app.database.prisma.auditLog.findMany({ where: { projectId: a.key.projectId, action: { startsWith: 'policy.' } }, orderBy: { id: 'asc' } });
    const ofPolicy = rows.filter((row) => (row.details as { policyId?: string }).policyId === id);
    expect(ofPolicy.map((row) => [row.action, row.apiKeyId, row.details])).toEqual([
      ['policy.apply', null, { policyId: id, version: 1, environment: 'development', walletType: 'EVM', actor: { type: 'staff', id: owner } }],
      ['policy.deactivate', null, { policyId: id, version: 1, environment: 'development', walletType: 'EVM', actor: { type: 'staff', id: developer } }],
    ]);
    expect(ofPolicy.every((row) => typeof row.requestId === 'string' && row.requestId.length > 0)).toBe(true);
    const versions = await a.support.policies.versions.query({ ...location(), policyId: id });
    expect(versions.versions[0]).toMatchObject({ createdBy: { type: 'staff', id: owner }, deactivatedBy: { type: 'staff', id: developer } });
  });

  it('support staff read but every write is 403, before anything is looked at', async () => {
    const id = `support-${randomUUID().slice(0, 8)}`;
    await a.owner.policies.activate.mutate({ ...location(), document: capPolicy(id) });
    expect(await trpcFailure(a.support.policies.activate.mutate({ ...location(), document: capPolicy(id, '5') }))).toEqual(FORBIDDEN);
    expect(await trpcFailure(a.support.policies.deactivate.mutate({ ...location(), policyId: id }))).toEqual(FORBIDDEN);
    expect(await trpcFailure(a.support.policies.activate.mutate({ projectId: randomUUID(), environment: 'development', document: {} }))).toEqual(FORBIDDEN);
    expect((await a.support.policies.get.query({ ...location(), policyId: id })).version).toBe('1');
    expect((await a.support.policies.versions.query({ ...location(), policyId: id })).versions).toHaveLength(1);
  });

  it('validate is pure and reports each problem at its JSON path; apply of the same document answers the same problems', async () => {
    const broken = { ...capPolicy('broken'), rules: [{ id: 'cap', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.value.baseUnits', op: 'gt', value: 1000 } }] };
    const validation = await a.support.policies.validate.mutate({ document: broken });
    expect(validation.ok).toBe(false);
    expect(validation.problems).toEqual([{ path: 'rules.0.condition.value', message: expect.any(String) }]);
    expect(await a.support.policies.validate.mutate({ document: capPolicy('fine') })).toEqual({ ok: true, problems: [] });
    const approval = { ...capPolicy('approvals'), rules: [{ id: 'r', effect: 'require_approval', actions: ['transfer'], approvalRequirement: { id: 'a', stages: [{ id: 's', eligibility: { roles: ['admin'] }, requiredApprovals: 1 }] } }] };
    expect(await a.owner.policies.validate.mutate({ document: approval })).toEqual({ ok: true, problems: [] });
    expect(await a.owner.policies.validate.mutate({ document: null })).toMatchObject({ ok: false, problems: [{ path: '' }] });

    const refused = await trpcFailure(a.owner.policies.activate.mutate({ ...location(), document: broken }));
    expect(refused).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST', details: validation.problems } });
    await expect(a.owner.policies.get.query({ ...location(), policyId: 'broken' })).rejects.toThrow();
    // Nothing was stored by validate or by the refused apply.
    expect(await app.database.prisma.auditLog.count({ where: { projectId: a.key.projectId, details: { path: ['policyId'], equals: 'broken' } } })).toBe(0);
  });

  it("answers another partner's project exactly like a missing or malformed one (404), for reads and writes", async () => {
    const id = `private-${randomUUID().slice(0, 8)}`;
    await a.owner.policies.activate.mutate({ ...location(), document: capPolicy(id) });
    const theirs = { projectId: a.key.projectId, environment: 'development' as const };
    const notFoundProject = { status: 404, body: { code: 'NOT_FOUND', message: 'Project not found' } };
    for (const projectId of [a.key.projectId, randomUUID(), 'not-a-uuid']) {
      const at = { ...theirs, projectId };
      expect(await trpcFailure(b.owner.policies.list.query(at))).toEqual(notFoundProject);
      expect(await trpcFailure(b.owner.policies.get.query({ ...at, policyId: id }))).toEqual(notFoundProject);
      expect(await trpcFailure(b.owner.policies.versions.query({ ...at, policyId: id }))).toEqual(notFoundProject);
      expect(await trpcFailure(b.owner.policies.activate.mutate({ ...at, document: capPolicy(id, '1') }))).toEqual(notFoundProject);
      expect(await trpcFailure(b.owner.policies.deactivate.mutate({ ...at, policyId: id }))).toEqual(notFoundProject);
    }
    // A's policy is untouched.
    expect((await a.owner.policies.get.query({ ...location(), policyId: id })).version).toBe('1');
  });

  it('serves the JSON Schema and the templates; a template fills a document the validation accepts', async () => {
    const schema = await a.support.policies.schema.query();
    expect(schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema' });
    const templates = await a.support.policies.templates.query();
    expect(templates.map((t) => t.id)).toEqual(['allowlisted-recipients', 'per-transaction-cap', 'daily-cap', 'deny-raw-signatures', 'deny-chains']);
    const { document } = await a.support.policies.fromTemplate.query({ template: 'per-transaction-cap', parameters: { walletType: 'EVM', chainIds: ['84532'], maxBaseUnits: '10' } });
    expect(await a.support.policies.validate.mutate({ document })).toEqual({ ok: true, problems: [] });
    expect(await trpcFailure(a.support.policies.fromTemplate.query({ template: 'deny-chains', parameters: {} }))).toMatchObject({
      status: 400,
      body: { code: 'INVALID_REQUEST', details: [{ path: 'parameters.chainIds' }] },
    });
  });

  describe('dry run (console)', () => {
    const notFoundKey = { status: 404, body: { code: 'NOT_FOUND', message: 'API key not found' } };

    it('lets support dry-run as a chosen key and answers what the REST dry run answers for that key, writing nothing', async () => {
      const id = `dry-${randomUUID().slice(0, 8)}`;
      // A second key of the same project and environment: the policy only covers the first.
      const other = await a.owner.apiKeys.create.mutate({ projectId: a.key.projectId, environment: 'development', plan: 'scale', rateLimitPerMinute: 0 });
      const base = capPolicy(id);
      const doc = { ...base, selector: { ...base.selector, apiKeyId: [a.key.apiKeyId] }, rules: [{ ...base.rules[0]!, actions: ['transfer', 'sign_transaction'] }] };
      await a.owner.policies.activate.mutate({ ...location(), document: doc });
      const wallet = await restWallet(app, a.key.apiKey);
      const request = { walletId: wallet.id, route: 'sign-transaction' as const, body: evmTx('5000') };
      const before = await traces(app, wallet.id);
      const audits = await app.database.prisma.auditLog.count({ where: { projectId: a.key.projectId } });

      const denied = await a.support.policies.dryRun.mutate({ ...location(), apiKeyId: a.key.apiKeyId, ...request });
      expect(denied).toMatchObject({ decision: 'deny', deniedBy: [{ policyId: id, policyVersion: '1', ruleId: 'cap' }], request: { apiKeyId: a.key.apiKeyId, walletId: wallet.id } });
      expect(denied.policies.find((p) => p.policyId === id)?.rules).toEqual([expect.objectContaining({ ruleId: 'cap', outcome: 'matched' })]);
      const rest = await app.request('POST', '/v1/permissions-v2/evaluate', { key: a.key.apiKey, body: request });
      expect(rest.status).toBe(200);
      expect(denied).toEqual(rest.body);

      // The other key is outside the selector: the same body is allowed for it, over tRPC and REST.
      const allowed = await a.developer.policies.dryRun.mutate({ ...location(), apiKeyId: other.apiKeyId, ...request });
      expect(allowed).toMatchObject({ decision: 'allow', reason: null, deniedBy: [], request: { apiKeyId: other.apiKeyId } });
      expect(allowed.policies.map((p) => p.policyId)).not.toContain(id);
      expect(allowed).toEqual((await app.request('POST', '/v1/permissions-v2/evaluate', { key: other.apiKey, body: request })).body);
      const under = await a.owner.policies.dryRun.mutate({ ...location(), apiKeyId: a.key.apiKeyId, ...request, body: evmTx('10') });
      expect(under).toMatchObject({ decision: 'allow', deniedBy: [] });

      expect(await traces(app, wallet.id)).toEqual(before);
      expect(await app.database.prisma.auditLog.count({ where: { projectId: a.key.projectId } })).toBe(audits);
      await a.owner.policies.deactivate.mutate({ ...location(), policyId: id });
      await a.owner.apiKeys.revoke.mutate({ apiKeyId: other.apiKeyId });
    });

    it('offers only live keys of the project and environment, and any other key is the same 404 as a missing one', async () => {
      const production = await a.owner.apiKeys.create.mutate({ projectId: a.key.projectId, environment: 'production', plan: 'free' });
      const revoked = await a.owner.apiKeys.create.mutate({ projectId: a.key.projectId, environment: 'development', plan: 'free' });
      await a.owner.apiKeys.revoke.mutate({ apiKeyId: revoked.apiKeyId });
      const offered = await a.support.policies.dryRunKeys.query(location());
      expect(offered.map((k) => k.apiKeyId)).toContain(a.key.apiKeyId);
      expect(offered.map((k) => k.apiKeyId)).not.toContain(revoked.apiKeyId);
      expect(offered.map((k) => k.apiKeyId)).not.toContain(production.apiKeyId);
      expect(offered.every((k) => k.environment === 'development' && k.revokedAt === null)).toBe(true);
      expect((await a.support.policies.dryRunKeys.query({ ...location(), environment: 'production' })).map((k) => k.apiKeyId)).toEqual([production.apiKeyId]);

      const wallet = await restWallet(app, a.key.apiKey);
      const request = { ...location(), walletId: wallet.id, route: 'sign-message' as const, body: { message: 'hi' } };
      for (const apiKeyId of [b.key.apiKeyId, revoked.apiKeyId, production.apiKeyId, randomUUID(), 'not-a-uuid']) {
        expect(await trpcFailure(a.support.policies.dryRun.mutate({ ...request, apiKeyId })), apiKeyId).toEqual(notFoundKey);
      }
      // Another partner's project, key or wallet: 404 like a missing one.
      expect(await trpcFailure(b.owner.policies.dryRun.mutate({ ...request, apiKeyId: a.key.apiKeyId }))).toEqual({ status: 404, body: { code: 'NOT_FOUND', message: 'Project not found' } });
      expect(await trpcFailure(b.owner.policies.dryRunKeys.query(location()))).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
      const theirWallet = await restWallet(app, b.key.apiKey);
      expect(await trpcFailure(a.owner.policies.dryRun.mutate({ ...request, apiKeyId: a.key.apiKeyId, walletId: theirWallet.id }))).toEqual({
        status: 404,
        body: { code: 'NOT_FOUND', message: 'Wallet not found' },
      });
      expect(await a.owner.policies.dryRun.mutate({ ...request, apiKeyId: a.key.apiKeyId })).toMatchObject({ decision: 'allow' });
    });
  });
});
