import { randomUUID } from 'node:crypto';
import { createSponsorship, type PolicyScope, type Sponsorship } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createSponsorshipStore } from './sponsorship.ts';

const operator = { type: 'operator', id: null } as const;
const noon = new Date('2027-03-01T12:00:00.000Z');

describe.each(testDatabaseKinds)('sponsorship settings and daily budget (%s)', (kind) => {
  let database: Database;
  let now = noon;
  let sponsorship: Sponsorship;

  /** A new project (its settings row needs one) in development, acting as the operator. */
  const project = async (): Promise<PolicyScope> => {
    const partnerId = randomUUID();
    const projectId = randomUUID();
    await database.prisma.partner.create({ data: { id: partnerId, name: `partner-${partnerId}` } });
    await database.prisma.project.create({ data: { id: projectId, partnerId, name: `p-${projectId}` } });
    return { projectId, environment: 'development', actor: operator };
  };
  const usedToday = async (scope: PolicyScope) => (await sponsorship.get(scope)).budgetToday.usedWei;

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    sponsorship = createSponsorship({ store: createSponsorshipStore(database), clock: { now: () => now } });
  });
  afterAll(async () => {
    await database?.close();
  });

  it('starts disabled with the documented defaults, applies each verb and the amounts given, and audits every change', async () => {
    const scope = await project();
    expect(await sponsorship.get(scope)).toEqual({
      projectId: scope.projectId,
      environment: 'development',
      enabled: false,
      paused: false,
      gasCapWei: '1000000000000000',
      dailyBudgetWei: '50000000000000000',
      updatedAt: null,
      updatedBy: null,
      budgetToday: { day: '2027-03-01', usedWei: '0', remainingWei: '50000000000000000' },
    });
    expect((await sponsorship.sponsorshipAdmission(scope)).state).toBe('disabled');

    const enabled = await sponsorship.change(scope, 'enable', { gasCapWei: '2000', dailyBudgetWei: '10000' });
    expect(enabled).toEqual({ projectId: scope.projectId, environment: 'development', enabled: true, paused: false, gasCapWei: '2000', dailyBudgetWei: '10000', updatedAt: noon.toISOString(), updatedBy: operator });
    expect((await sponsorship.sponsorshipAdmission(scope)).state).toBe('enabled');
    expect(await sponsorship.change(scope, 'pause')).toMatchObject({ enabled: true, paused: true, gasCapWei: '2000', dailyBudgetWei: '10000' });
    expect((await sponsorship.sponsorshipAdmission(scope)).state).toBe('paused');
    expect(await sponsorship.change(scope, 'resume', { dailyBudgetWei: '20000' })).toMatchObject({ enabled: true, paused: false, dailyBudgetWei: '20000' });
    expect(await sponsorship.change(scope, 'disable')).toMatchObject({ enabled: false, paused: false, gasCapWei: '2000' });
    // The other environment keeps its own (default) settings.
    expect((await sponsorship.sponsorshipAdmission({ ...scope, environment: 'production' })).settings).toMatchObject({ enabled: false, gasCapWei: '1000000000000000' });

    const audit = await database.prisma.auditLog.findMany({ where: { projectId: scope.projectId, action: { startsWith: 'sponsorship.' } }, orderBy: { id: 'asc' } });
    expect(audit.map((a) => [a.action, a.details])).toEqual([
      ['sponsorship.enable', { environment: 'development', actor: operator, enabled: true, paused: false, gasCapWei: '2000', dailyBudgetWei: '10000' }],
      ['sponsorship.pause', expect.objectContaining({ paused: true })],
      ['sponsorship.resume', expect.objectContaining({ paused: false, dailyBudgetWei: '20000' })],
      ['sponsorship.disable', expect.objectContaining({ enabled: false })],
    ]);
  });

  it('refuses bad amounts naming the field, and writes nothing', async () => {
    const scope = await project();
    const cases: Array<[unknown, string]> = [
      [{ gasCapWei: '0' }, 'gasCapWei'],
      [{ gasCapWei: '-1' }, 'gasCapWei'],
      [{ gasCapWei: '01' }, 'gasCapWei'],
      [{ dailyBudgetWei: '1.5' }, 'dailyBudgetWei'],
      [{ dailyBudgetWei: 100 }, 'dailyBudgetWei'],
      [{ dailyBudgetWei: (1n << 256n).toString() }, 'dailyBudgetWei'],
      [{ gasCap: '1' }, ''],
    ];
    for (const [limits, path] of cases) {
      const error = (await sponsorship.change(scope, 'enable', limits).catch((e: unknown) => e)) as { code: string; extra: { details: Array<{ path: string }> } };
      expect(error.code, JSON.stringify(limits)).toBe('INVALID_REQUEST');
      expect(error.extra.details[0]!.path).toBe(path);
    }
    expect(await sponsorship.change(scope, 'enable', { dailyBudgetWei: ((1n << 256n) - 1n).toString() })).toMatchObject({ dailyBudgetWei: ((1n << 256n) - 1n).toString() });
    expect(await database.prisma.auditLog.count({ where: { projectId: scope.projectId } })).toBe(1);
  });

  it('lets exactly as many of 50 parallel reservations through as the daily budget holds', async () => {
    const scope = await project();
    await sponsorship.change(scope, 'enable', { dailyBudgetWei: '1000' });
    // 50 x 70 wei against 1000: 14 fit (980), the 15th would make 1050.
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => sponsorship.reserveSponsorshipBudget(scope, `op-${scope.projectId}-${i}`, 70n)));
    expect(results.filter((r) => r.ok)).toHaveLength(14);
    const refused = results.filter((r) => !r.ok);
    expect(refused).toHaveLength(36);
    expect(refused[0]).toMatchObject({ code: 'SPONSORSHIP_BUDGET_EXCEEDED', requestedWei: '70', dailyBudgetWei: '1000', day: '2027-03-01' });
    expect(await usedToday(scope)).toBe('980');
    const held = await database.query<{ n: string }>("SELECT count(*)::text AS n FROM sponsorship_budget_reservations WHERE project_id = $1 AND status = 'reserved'", [scope.projectId]);
    expect(held[0]!.n).toBe('14');
  });

  it('counts a retried reservation once, also when the retries run in parallel', async () => {
    const scope = await project();
    await sponsorship.change(scope, 'enable', { dailyBudgetWei: '1000' });
    const retries = await Promise.all(Array.from({ length: 10 }, () => sponsorship.reserveSponsorshipBudget(scope, `op-${scope.projectId}`, '300')));
    expect(retries.every((r) => r.ok && r.reservedWei === '300')).toBe(true);
    expect(await usedToday(scope)).toBe('300');
    // Another project or environment cannot take the same operation id over.
    await expect(sponsorship.reserveSponsorshipBudget({ ...scope, environment: 'production' }, `op-${scope.projectId}`, 1n)).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('settles to the actual cost and releases, each once; a released operation may reserve again', async () => {
    const scope = await project();
    await sponsorship.change(scope, 'enable', { dailyBudgetWei: '1000' });
    const [a, b, c] = ['a', 'b', 'c'].map((n) => `${n}-${scope.projectId}`) as [string, string, string];
    for (const id of [a, b, c]) expect((await sponsorship.reserveSponsorshipBudget(scope, id, 300n)).ok).toBe(true);
    expect(await usedToday(scope)).toBe('900');
    expect((await sponsorship.reserveSponsorshipBudget(scope, `d-${scope.projectId}`, 101n)).ok).toBe(false);

    expect(await sponsorship.settleSponsorshipBudget(a, 120n)).toEqual({ operationId: a, status: 'settled', heldWei: '120' });
    expect(await usedToday(scope)).toBe('720');
    // A second settle (a retry, or another amount) changes nothing; a release after it neither.
    expect(await sponsorship.settleSponsorshipBudget(a, 999n)).toEqual({ operationId: a, status: 'settled', heldWei: '120' });
    expect(await sponsorship.releaseSponsorshipBudget(a)).toEqual({ operationId: a, status: 'settled', heldWei: '120' });
    expect(await usedToday(scope)).toBe('720');

    expect(await sponsorship.releaseSponsorshipBudget(b)).toEqual({ operationId: b, status: 'released', heldWei: '0' });
    expect(await sponsorship.releaseSponsorshipBudget(b)).toEqual({ operationId: b, status: 'released', heldWei: '0' });
    expect(await usedToday(scope)).toBe('420');
    // Released, then landed after all: its actual cost counts again.
    expect(await sponsorship.settleSponsorshipBudget(b, 50n)).toEqual({ operationId: b, status: 'settled', heldWei: '50' });
    expect(await usedToday(scope)).toBe('470');

    await sponsorship.releaseSponsorshipBudget(c);
    expect(await sponsorship.reserveSponsorshipBudget(scope, c, 200n)).toMatchObject({ ok: true, reservedWei: '200', usedTodayWei: '370' });
    expect(await usedToday(scope)).toBe('370');
    // A reservation larger than the whole budget is refused and leaves nothing behind.
    expect(await sponsorship.reserveSponsorshipBudget(scope, `e-${scope.projectId}`, 1001n)).toMatchObject({ ok: false, usedTodayWei: '370' });
    await expect(sponsorship.settleSponsorshipBudget(`e-${scope.projectId}`, 1n)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(sponsorship.releaseSponsorshipBudget(`unknown-${scope.projectId}`)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(sponsorship.reserveSponsorshipBudget(scope, `f-${scope.projectId}`, '-1')).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it("raises an operation's reservation to a replacement's cost within the budget, never lowers it, and settles once", async () => {
    const scope = await project();
    await sponsorship.change(scope, 'enable', { dailyBudgetWei: '1000' });
    const [a, b] = ['a', 'b'].map((n) => `${n}-${scope.projectId}`) as [string, string];
    await sponsorship.reserveSponsorshipBudget(scope, a, 300n);
    await sponsorship.reserveSponsorshipBudget(scope, b, 300n);
    expect(await sponsorship.raiseSponsorshipBudget(scope, a, 450n)).toMatchObject({ ok: true, reservedWei: '450', usedTodayWei: '750' });
    // Already as much (a retried raise, or a lower figure): unchanged.
    expect(await sponsorship.raiseSponsorshipBudget(scope, a, 400n)).toMatchObject({ ok: true, reservedWei: '450', usedTodayWei: '750' });
    // The difference must fit: 750 + 251 > 1000 is refused and changes nothing.
    expect(await sponsorship.raiseSponsorshipBudget(scope, b, 551n)).toMatchObject({ ok: false, code: 'SPONSORSHIP_BUDGET_EXCEEDED', requestedWei: '251', usedTodayWei: '750' });
    expect(await usedToday(scope)).toBe('750');
    expect(await sponsorship.settleSponsorshipBudget(a, 120n)).toMatchObject({ status: 'settled', heldWei: '120' });
    expect(await usedToday(scope)).toBe('420');
    // Settled or unknown: nothing to raise.
    await expect(sponsorship.raiseSponsorshipBudget(scope, a, 999n)).rejects.toMatchObject({ code: 'CONFLICT' });
    await expect(sponsorship.raiseSponsorshipBudget(scope, `unknown-${scope.projectId}`, 1n)).rejects.toMatchObject({ code: 'CONFLICT' });
    expect(await usedToday(scope)).toBe('420');
  });

  it('starts each UTC day at zero; a settlement after midnight lands on the day it was reserved on', async () => {
    const scope = await project();
    await sponsorship.change(scope, 'enable', { dailyBudgetWei: '1000' });
    now = new Date('2027-03-01T23:59:59.999Z');
    const late = `late-${scope.projectId}`;
    expect((await sponsorship.reserveSponsorshipBudget(scope, late, 1000n)).ok).toBe(true);
    expect((await sponsorship.reserveSponsorshipBudget(scope, `more-${scope.projectId}`, 1n)).ok).toBe(false);
    now = new Date('2027-03-02T00:00:00.000Z');
    expect(await sponsorship.get(scope)).toMatchObject({ budgetToday: { day: '2027-03-02', usedWei: '0', remainingWei: '1000' } });
    expect(await sponsorship.reserveSponsorshipBudget(scope, `more-${scope.projectId}`, 1000n)).toMatchObject({ ok: true, day: '2027-03-02' });
    await sponsorship.settleSponsorshipBudget(late, 400n);
    expect(await usedToday(scope)).toBe('1000');
    const days = await database.query<{ day: string; used: string }>("SELECT to_char(day, 'YYYY-MM-DD') AS day, used::text AS used FROM sponsorship_budget WHERE project_id = $1 ORDER BY day", [scope.projectId]);
    expect(days).toEqual([
      { day: '2027-03-01', used: '400' },
      { day: '2027-03-02', used: '1000' },
    ]);
    now = noon;
  });
});
