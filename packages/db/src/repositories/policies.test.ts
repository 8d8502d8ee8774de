import { randomUUID } from 'node:crypto';
import { ApiError, createPartnerScope, createPolicyService, type PolicyScope, type PolicyService } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createApiKeyStore } from './api-keys.ts';
import { createConsoleStore } from './console.ts';
import { createPolicyStore } from './policies.ts';

const doc = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  schemaVersion: 'permissions.policy.v1',
  version: '1',
  selector: { walletType: 'EVM', chainId: ['84532'] },
  metadata: { productMode: 'guardrail' },
  rules: [{ id: 'cap', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.value.baseUnits', op: 'gt', value: '1000' } }],
  ...extra,
});

async function refusal(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

describe.each(testDatabaseKinds)('policy storage and versions (%s)', (kind) => {
  let database: Database;
  let service: PolicyService;
  const clock = { at: new Date('2027-03-01T12:00:00Z'), now() { return this.at; } };
  let partnerId: string;

  const newProject = async (partner = partnerId) => {
    const id = randomUUID();
    await database.prisma.project.create({ data: { id, partnerId: partner, name: `p-${id}` } });
    return id;
  };
  const keyScope = (projectId: string, environment: 'development' | 'production' = 'development'): PolicyScope => ({
    projectId,
    environment,
    actor: { type: 'api_key', id: randomUUID() },
    requestId: 'req-1',
  });
  const auditRows = (projectId: string) =>
    database.prisma.auditLog.findMany({ where: { projectId }, orderBy: { id: 'asc' }, select: { action: true, apiKeyId: true, requestId: true, details: true } });

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    partnerId = randomUUID();
    await database.prisma.partner.create({ data: { id: partnerId, name: `partner-${partnerId}` } });
    const partnerScope = createPartnerScope({ store: createConsoleStore(database), apiKeys: createApiKeyStore(database) });
    service = createPolicyService({ store: createPolicyStore(database), clock, partnerScope });
  });
  afterAll(async () => {
    await database.close();
  });

  it('creates version 1, then the next version on the same id; the previous one becomes inactive, nothing is deleted', async () => {
    const scope = keyScope(await newProject());
    const first = await service.apply(scope, doc('caps'));
    expect(first).toMatchObject({ policyId: 'caps', version: '1', status: 'active', environment: 'development', walletType: 'EVM', createdBy: scope.actor, replacedBy: null });
    // The document's own version is replaced by the number the service gives.
    const second = await service.apply(scope, doc('caps', { version: '7', metadata: { productMode: 'guardrail', description: 'v2' } }));
    expect(second).toMatchObject({ version: '2', status: 'active', definition: { version: '2', metadata: { description: 'v2' } } });

    expect(await service.get(scope, 'caps')).toEqual(second);
    const { versions } = await service.versions(scope, 'caps');
    expect(versions.map((v) => [v.version, v.status, v.replacedBy])).toEqual([
      ['2', 'active', null],
      ['1', 'inactive', '2'],
    ]);
    expect(versions[1]).toMatchObject({ deactivatedAt: clock.at.toISOString(), deactivatedBy: scope.actor, definition: { version: '1' } });
    expect((await service.list(scope)).policies.map((p) => [p.policyId, p.version])).toEqual([['caps', '2']]);

    expect(await auditRows(scope.projectId)).toEqual([
      { action: 'policy.apply', apiKeyId: scope.actor.id, requestId: 'req-1', details: { policyId: 'caps', version: 1, environment: 'development', walletType: 'EVM', actor: scope.actor } },
      { action: 'policy.apply', apiKeyId: scope.actor.id, requestId: 'req-1', details: { policyId: 'caps', version: 2, environment: 'development', walletType: 'EVM', actor: scope.actor } },
    ]);
    // Versions are history: the database refuses to delete them.
    await expect(database.query('DELETE FROM policy_versions')).rejects.toThrow(/never deleted/);
    await expect(database.query(`UPDATE policy_versions SET status = 'draft'`)).rejects.toThrow(/policy_versions_status_check/);
  });

  it('makes a next version only for the same selector (wallet type and network set); another one is a 409 that changes nothing', async () => {
    const scope = keyScope(await newProject());
    await service.apply(scope, doc('sel', { selector: { walletType: 'EVM', chainId: ['84532', '1'] } }));
    // Order is irrelevant and wallet or key sets may change.
    const same = await service.apply(scope, doc('sel', { selector: { walletType: 'EVM', chainId: ['1', '84532'], walletId: [randomUUID()] } }));
    expect(same.version).toBe('2');
    const solana = { selector: { walletType: 'SOLANA' }, rules: [{ id: 'raw', effect: 'allow', actions: ['raw_signature'] }] };
    for (const other of [{ selector: { walletType: 'EVM', chainId: ['1'] } }, { selector: { walletType: 'EVM' } }, solana]) {
      const refused = await refusal(service.apply(scope, doc('sel', other)));
      expect(refused.toBody()).toMatchObject({ code: 'CONFLICT', details: [{ path: 'selector' }] });
    }
    await service.deactivate(scope, 'sel');
    expect((await refusal(service.apply(scope, doc('sel', { selector: { walletType: 'EVM' } })))).status).toBe(409);
    // The refused applies left no version, no counter step and no audit row behind.
    expect((await service.apply(scope, doc('sel', { selector: { walletType: 'EVM', chainId: ['1', '84532'] } }))).version).toBe('3');
    expect((await auditRows(scope.projectId)).map((a) => a.action)).toEqual(['policy.apply', 'policy.apply', 'policy.deactivate', 'policy.apply']);
  });

  it('20 concurrent applies of one id get versions 1..20 and leave exactly one active version', async () => {
    const scope = keyScope(await newProject());
    const views = await Promise.all(Array.from({ length: 20 }, (_, i) => service.apply(scope, doc('race', { metadata: { productMode: 'guardrail', description: `apply ${i}` } }))));
    expect(views.map((v) => Number(v.version)).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const rows = await database.query<{ version: number; status: string; replaced_by: number | null }>(
      `SELECT v.version, v.status, v.replaced_by FROM policy_versions v JOIN policies p ON p.id = v.policy_key WHERE p.project_id = $1 ORDER BY v.version`,
      [scope.projectId],
    );
    expect(rows.filter((r) => r.status === 'active')).toEqual([{ version: 20, status: 'active', replaced_by: null }]);
    // Each version was replaced by the one after it: every apply saw its predecessor.
    expect(rows.slice(0, 19).map((r) => r.replaced_by)).toEqual(Array.from({ length: 19 }, (_, i) => i + 2));
    expect((await auditRows(scope.projectId)).length).toBe(20);
    expect((await service.get(scope, 'race')).version).toBe('20');
  });

  it('keeps development and production apart', async () => {
    const projectId = await newProject();
    const dev = keyScope(projectId, 'development');
    const prod = keyScope(projectId, 'production');
    await service.apply(dev, doc('shared'));
    await service.apply(dev, doc('shared'));
    expect((await service.list(prod)).policies).toEqual([]);
    expect((await refusal(service.get(prod, 'shared'))).status).toBe(404);
    expect((await refusal(service.deactivate(prod, 'shared'))).status).toBe(404);
    const prodFirst = await service.apply(prod, doc('shared'));
    expect(prodFirst).toMatchObject({ version: '1', environment: 'production' });
    expect((await service.get(dev, 'shared')).version).toBe('2');
    expect(await service.activePoliciesFor(projectId, 'production', 'EVM')).toHaveLength(1);
    expect((await service.activePoliciesFor(projectId, 'development', 'EVM'))[0]).toMatchObject({ version: 2, environment: 'development' });
  });

  it("answers another project's policy with the same 404 as a missing one, and refuses another partner's project to staff", async () => {
    const owner = keyScope(await newProject());
    const other = keyScope(await newProject());
    await service.apply(owner, doc('private'));
    const foreign = await refusal(service.get(other, 'private'));
    const missing = await refusal(service.get(other, 'no-such-policy'));
    expect(foreign.status).toBe(404);
    expect(foreign.toBody()).toEqual(missing.toBody());
    expect((await refusal(service.versions(other, 'private'))).toBody()).toEqual(missing.toBody());
    expect((await refusal(service.deactivate(other, 'private'))).toBody()).toEqual(missing.toBody());
    expect((await service.list(other)).policies).toEqual([]);
    expect((await service.get(owner, 'private')).status).toBe('active');

    const staff = { partnerId, staffId: randomUUID() };
    const staffScope = await service.staffScope(staff, owner.projectId, 'development');
    expect(staffScope).toEqual({ projectId: owner.projectId, environment: 'development', actor: { type: 'staff', id: staff.staffId } });
    expect((await service.get(staffScope, 'private')).policyId).toBe('private');
    const otherPartner = randomUUID();
    await database.prisma.partner.create({ data: { id: otherPartner, name: `partner-${otherPartner}` } });
    const theirs = await newProject(otherPartner);
    const staffForeign = await refusal(service.staffScope(staff, theirs, 'development'));
    const staffMissing = await refusal(service.staffScope(staff, randomUUID(), 'development'));
    expect(staffForeign.status).toBe(404);
    expect(staffForeign.toBody()).toEqual(staffMissing.toBody());
    expect((await refusal(service.staffScope(staff, owner.projectId, 'staging'))).status).toBe(400);
  });

  it('lists only policies whose effective window holds now (moved clock), and filters evaluation by wallet type', async () => {
    const scope = keyScope(await newProject());
    const saved = clock.at;
    try {
      await service.apply(scope, doc('always'));
      await service.apply(scope, doc('later', { effectiveFrom: '2027-04-01T00:00:00Z' }));
      await service.apply(scope, doc('ending', { effectiveUntil: '2027-03-15T00:00:00Z' }));
      await service.apply(scope, doc('solana', { selector: { walletType: 'SOLANA' }, rules: [{ id: 'raw', effect: 'allow', actions: ['raw_signature'] }] }));
      const listed = async () => (await service.list(scope)).policies.map((p) => p.policyId);
      expect(await listed()).toEqual(['always', 'ending', 'solana']);
      clock.at = new Date('2027-03-15T00:00:00Z'); // effectiveUntil is exclusive
      expect(await listed()).toEqual(['always', 'solana']);
      clock.at = new Date('2027-04-01T00:00:00Z'); // effectiveFrom is inclusive
      expect(await listed()).toEqual(['always', 'later', 'solana']);
      expect((await service.activePoliciesFor(scope.projectId, 'development', 'EVM')).map((r) => r.policyId)).toEqual(['always', 'later']);
      expect((await service.activePoliciesFor(scope.projectId, 'development', 'SOLANA')).map((r) => r.policyId)).toEqual(['solana']);
      // Outside its window a policy is still the active one: get shows it, with its window.
      expect(await service.get(scope, 'ending')).toMatchObject({ status: 'active', effectiveUntil: '2027-03-15T00:00:00.000Z' });
    } finally {
      clock.at = saved;
    }
  });

  it('deactivates by a status change: versions stay, reads stop, a new apply is the next version', async () => {
    const scope = keyScope(await newProject());
    await service.apply(scope, doc('off'));
    const staffActor = { type: 'staff' as const, id: randomUUID() };
    const off = await service.deactivate({ ...scope, actor: staffActor, requestId: null }, 'off');
    expect(off).toMatchObject({ version: '1', status: 'inactive', deactivatedBy: staffActor, deactivatedAt: clock.at.toISOString(), replacedBy: null });
    expect((await refusal(service.get(scope, 'off'))).status).toBe(404);
    expect((await service.list(scope)).policies).toEqual([]);
    expect((await service.versions(scope, 'off')).versions.map((v) => [v.version, v.status])).toEqual([['1', 'inactive']]);
    expect((await refusal(service.deactivate(scope, 'off'))).status).toBe(404);
    expect((await service.apply(scope, doc('off'))).version).toBe('2');
    expect((await service.versions(scope, 'off')).versions.map((v) => [v.version, v.status])).toEqual([
      ['2', 'active'],
      ['1', 'inactive'],
    ]);
    const actions = await auditRows(scope.projectId);
    expect(actions.map((a) => a.action)).toEqual(['policy.apply', 'policy.deactivate', 'policy.apply']);
    expect(actions[1]).toMatchObject({ apiKeyId: null, requestId: null, details: { policyId: 'off', version: 1, actor: staffActor } });
  });

  it('refuses invalid documents with 400 and every problem at its path, storing nothing; accepts require_approval (conditional approvals, and partner reviews without approvalRequirement)', async () => {
    const scope = keyScope(await newProject());
    const approval = doc('needs-approval', {
      rules: [{ id: 'big', effect: 'require_approval', actions: 'all', approvalRequirement: { id: 'r', stages: [{ id: 's', eligibility: { roles: ['finance'] }, requiredApprovals: 1 }] } }],
    });
    expect(await service.apply(keyScope(await newProject()), approval)).toMatchObject({ policyId: 'needs-approval', status: 'active' });
    const partnerReview = await service.apply(keyScope(await newProject()), doc('partner-review', { rules: [{ id: 'big', effect: 'require_approval', actions: 'all' }] }));
    expect(partnerReview).toMatchObject({ policyId: 'partner-review', status: 'active' });

    const bad = await refusal(service.apply(scope, { ...doc('bad'), owner: 'me', selector: { walletType: ['EVM', 'SUI'] } }));
    expect(bad.status).toBe(400);
    const paths = (bad.extra.details as Array<{ path: string }>).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['owner', 'selector.walletType']));
    expect((await refusal(service.apply(scope, 'not a document'))).status).toBe(400);

    expect((await service.list(scope)).policies).toEqual([]);
    expect(await auditRows(scope.projectId)).toEqual([]);
    expect(await database.prisma.policy.count({ where: { projectId: scope.projectId } })).toBe(0);
  });
});
