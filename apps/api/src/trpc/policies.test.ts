import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { policyApprovalsUnavailableMessage } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePartner } from '../testing/console-fixtures.ts';
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
    expect((await a.owner.policies.validate.mutate({ document: approval })).problems).toEqual([{ path: 'rules.0.effect', message: policyApprovalsUnavailableMessage }]);
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
});
