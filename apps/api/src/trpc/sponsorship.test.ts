import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePartner, graphql } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { trpcFailure } from '../testing/staff-client.ts';

type Partner = Awaited<ReturnType<typeof consolePartner>>;

const READ_ONLY = { status: 403, body: { code: 'FORBIDDEN', message: 'Support staff have read-only access' } };
const OWNERS_ONLY = { status: 403, body: { code: 'FORBIDDEN', message: 'Only owners may change gas sponsorship' } };
const NOT_PROJECT = { status: 404, body: { code: 'NOT_FOUND', message: 'Project not found' } };
const DEFAULTS = { gasCapWei: '1000000000000000', dailyBudgetWei: '50000000000000000' };
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const today = () => new Date().toISOString().slice(0, 10);
const MAX_UINT256 = ((1n << 256n) - 1n).toString();

const SPONSORSHIP_FIELDS = 'projectId environment enabled paused gasCapWei dailyBudgetWei updatedAt updatedBy { type id email } budgetToday { day usedWei remainingWei }';

const DEAD_RPC = 'http://127.0.0.1:9';
const PAYMASTER = '0x00000000000000000000000000000000000000a1';
/** As the service names it (EIP-55). */
const PAYMASTER_CHECKSUMMED = '0x00000000000000000000000000000000000000A1';

describe.each(testDatabaseKinds)('console gas sponsorship over tRPC and GraphQL on %s', (kind) => {
  let app: TestApp;
  let a: Partner;
  let b: Partner;
  const owner = { staffId: '', email: '' };
  const passwords: string[] = [];

  beforeAll(async () => {
    // A sponsorship chain whose RPC refuses connections: its funding reads as unavailable.
    app = await startTestApp(kind, {
      env: {
        CHAINS: JSON.stringify([{ type: 'EVM', chainId: 11155111, rpcUrl: DEAD_RPC }]),
        SPONSORSHIP: JSON.stringify([{ chainId: 11155111, paymaster: PAYMASTER, tokens: ['0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'] }]),
      },
    });
    [a, b] = await Promise.all([consolePartner(app, passwords), consolePartner(app, passwords)]);
    const me = (await a.owner.auth.me.query())!;
    Object.assign(owner, { staffId: me.staffId, email: me.email });
  });
  afterAll(async () => {
    const logs = app.logLines.join('');
    for (const secret of [...app.secrets(), ...passwords]) expect(logs).not.toContain(secret);
    await app.close();
  });

  const here = (environment: 'development' | 'production' = 'development') => ({ projectId: a.key.projectId, environment });
  const audit = () => app.database.prisma.auditLog.findMany({ where: { projectId: a.key.projectId, action: { startsWith: 'sponsorship.' } }, orderBy: { id: 'asc' } });

  it('reads the defaults (disabled, nobody changed them) for every role; only owners change; another partner gets 404; refusals write nothing', async () => {
    const untouched = {
      ...here('production'),
      enabled: false,
      paused: false,
      ...DEFAULTS,
      updatedAt: null,
      updatedBy: null,
      updatedByEmail: null,
      budgetToday: { day: today(), usedWei: '0', remainingWei: DEFAULTS.dailyBudgetWei },
    };
    for (const role of [a.support, a.developer, a.owner]) expect(await role.sponsorship.get.query(here('production'))).toEqual(untouched);

    const enable = { ...here('production'), verb: 'enable' as const, gasCapWei: '2000000000000000' };
    expect(await trpcFailure(a.developer.sponsorship.change.mutate(enable))).toEqual(OWNERS_ONLY);
    expect(await trpcFailure(a.support.sponsorship.change.mutate(enable))).toEqual(READ_ONLY);
    expect(await trpcFailure(b.owner.sponsorship.change.mutate(enable))).toEqual(NOT_PROJECT);
    expect(await trpcFailure(b.owner.sponsorship.get.query(here('production')))).toEqual(NOT_PROJECT);
    expect(await trpcFailure(a.owner.sponsorship.get.query({ projectId: 'not-a-uuid', environment: 'development' }))).toEqual(NOT_PROJECT);
    expect(await a.support.sponsorship.get.query(here('production'))).toEqual(untouched);
    expect(await audit()).toEqual([]);
  });

  it('refuses amounts that are not positive wei decimal strings, unknown verbs and keys, naming the field, and writes nothing', async () => {
    const refusals: [Record<string, unknown>, string][] = [
      [{ verb: 'enable', gasCapWei: '0' }, 'gasCapWei'],
      [{ verb: 'enable', gasCapWei: '-5' }, 'gasCapWei'],
      [{ verb: 'enable', dailyBudgetWei: '0.5' }, 'dailyBudgetWei'],
      [{ verb: 'enable', dailyBudgetWei: '007' }, 'dailyBudgetWei'],
      [{ verb: 'enable', dailyBudgetWei: '1e18' }, 'dailyBudgetWei'],
      [{ verb: 'enable', gasCapWei: (BigInt(MAX_UINT256) + 1n).toString() }, 'gasCapWei'],
      [{ verb: 'enable', gasCapWei: 1000 }, 'gasCapWei'],
      [{ verb: 'explode' }, 'verb'],
      [{ verb: 'enable', paused: true }, ''],
    ];
    for (const [change, path] of refusals) {
      const failure = await trpcFailure(a.owner.sponsorship.change.mutate({ ...here(), ...change } as never));
      expect(failure, JSON.stringify(change)).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST', message: expect.stringContaining('Invalid request') } });
      expect((failure.body.details as { path: string }[])[0]!.path, JSON.stringify(change)).toBe(path);
    }
    expect(await a.owner.sponsorship.get.query(here())).toMatchObject({ enabled: false, ...DEFAULTS, updatedAt: null });
    expect(await audit()).toEqual([]);
    // The largest amount is accepted (in production, which the next tests leave aside).
    expect(await a.owner.sponsorship.change.mutate({ ...here('production'), verb: 'disable', dailyBudgetWei: MAX_UINT256 })).toMatchObject({ enabled: false, dailyBudgetWei: MAX_UINT256 });
  });

  it('an owner enables with limits, pauses and resumes (audited with the staff member); today\'s budget use shows; GraphQL reads the same; production is apart', async () => {
    const enabled = await a.owner.sponsorship.change.mutate({ ...here(), verb: 'enable', gasCapWei: '2000000000000000', dailyBudgetWei: '100000000000000000' });
    const staffActor = { type: 'staff', id: owner.staffId };
    expect(enabled).toEqual({
      ...here(),
      enabled: true,
      paused: false,
      gasCapWei: '2000000000000000',
      dailyBudgetWei: '100000000000000000',
      updatedAt: iso,
      updatedBy: staffActor,
      updatedByEmail: owner.email,
      budgetToday: { day: today(), usedWei: '0', remainingWei: '100000000000000000' },
    });
    expect(await a.support.sponsorship.get.query(here())).toEqual(enabled);
    expect(await a.support.sponsorship.get.query(here('production'))).toMatchObject({ enabled: false, dailyBudgetWei: MAX_UINT256 });

    const paused = await a.owner.sponsorship.change.mutate({ ...here(), verb: 'pause' });
    expect(paused).toMatchObject({ enabled: true, paused: true, gasCapWei: '2000000000000000', dailyBudgetWei: '100000000000000000' });
    expect(await app.services.sponsorship.sponsorshipAdmission(here())).toMatchObject({ state: 'paused' });
    const resumed = await a.owner.sponsorship.change.mutate({ ...here(), verb: 'resume' });
    expect(resumed).toMatchObject({ enabled: true, paused: false });
    expect(await app.services.sponsorship.sponsorshipAdmission(here())).toMatchObject({ state: 'enabled' });
    // The limits form switches nothing: only the amount it sends changes.
    const limited = await a.owner.sponsorship.change.mutate({ ...here(), verb: 'limits', gasCapWei: '3000000000000000' });
    expect(limited).toMatchObject({ enabled: true, paused: false, gasCapWei: '3000000000000000', dailyBudgetWei: '100000000000000000' });

    // An operation reserves on today's budget: the page shows what is used and what remains.
    const reserved = await app.services.sponsorship.reserveSponsorshipBudget(here(), `console-${Math.random()}`, 30_000_000_000_000_000n);
    expect(reserved.ok).toBe(true);
    const withUse = await a.support.sponsorship.get.query(here());
    expect(withUse.budgetToday).toEqual({ day: today(), usedWei: '30000000000000000', remainingWei: '70000000000000000' });

    const rows = (await audit()).filter((row) => (row.details as { environment: string }).environment === 'development');
    expect(rows.map((row) => [row.action, row.apiKeyId, row.details])).toEqual([
      ['sponsorship.enable', null, { environment: 'development', actor: staffActor, enabled: true, paused: false, gasCapWei: '2000000000000000', dailyBudgetWei: '100000000000000000' }],
      ['sponsorship.pause', null, { environment: 'development', actor: staffActor, enabled: true, paused: true, gasCapWei: '2000000000000000', dailyBudgetWei: '100000000000000000' }],
      ['sponsorship.resume', null, { environment: 'development', actor: staffActor, enabled: true, paused: false, gasCapWei: '2000000000000000', dailyBudgetWei: '100000000000000000' }],
      ['sponsorship.limits', null, { environment: 'development', actor: staffActor, enabled: true, paused: false, gasCapWei: '3000000000000000', dailyBudgetWei: '100000000000000000' }],
    ]);

    const seen = await graphql(app, a.cookies.support, `query($projectId: ID!) { sponsorship(projectId: $projectId) { ${SPONSORSHIP_FIELDS} } }`, { projectId: a.key.projectId });
    expect(seen.body.errors).toBeUndefined();
    expect(seen.body.data.sponsorship).toEqual({
      ...here(),
      enabled: true,
      paused: false,
      gasCapWei: '3000000000000000',
      dailyBudgetWei: '100000000000000000',
      updatedAt: limited.updatedAt,
      updatedBy: { ...staffActor, email: owner.email },
      budgetToday: withUse.budgetToday,
    });
    const production = await graphql(app, a.cookies.support, `{ sponsorship(projectId: "${a.key.projectId}", environment: "production") { enabled dailyBudgetWei } }`);
    expect(production.body.data).toEqual({ sponsorship: { enabled: false, dailyBudgetWei: MAX_UINT256 } });
  });

  it('a change made with the CLI shows as the operator, without an email; GraphQL scopes and validates like tRPC', async () => {
    const scope = await app.services.policies.operatorScope(a.key.projectId, 'production');
    await app.services.sponsorship.change(scope, 'enable', { gasCapWei: '3000000000000000' });
    expect(await a.support.sponsorship.get.query(here('production'))).toMatchObject({ enabled: true, gasCapWei: '3000000000000000', updatedBy: { type: 'operator', id: null }, updatedByEmail: null });
    const viaGraphql = await graphql(app, a.cookies.developer, `{ sponsorship(projectId: "${a.key.projectId}", environment: "production") { gasCapWei updatedBy { type id email } } }`);
    expect(viaGraphql.body.data).toEqual({ sponsorship: { gasCapWei: '3000000000000000', updatedBy: { type: 'operator', id: null, email: null } } });

    const errorsOf = (response: Awaited<ReturnType<typeof graphql>>) => response.body.errors?.map((e) => [e.extensions?.code, e.message]);
    expect(errorsOf(await graphql(app, b.cookies.support, `{ sponsorship(projectId: "${a.key.projectId}") { enabled } }`))).toEqual([['NOT_FOUND', 'Project not found']]);
    const badEnvironment = await graphql(app, a.cookies.support, `{ sponsorship(projectId: "${a.key.projectId}", environment: "staging") { enabled } }`);
    expect(errorsOf(badEnvironment)?.[0]?.[0]).toBe('INVALID_REQUEST');
    const anonymous = await graphql(app, undefined, `{ sponsorship(projectId: "${a.key.projectId}") { enabled } }`);
    expect(anonymous.status).toBe(401);
    // The support schema has no mutations.
    expect((await graphql(app, a.cookies.owner, 'mutation { sponsorship { enabled } }')).body.errors?.length).toBeGreaterThan(0);
  });

  it("every staff role reads the deployment's funding per sponsorship chain; a chain whose RPC does not answer is unavailable, without its URL", async () => {
    const read = await a.support.sponsorship.funding.query();
    expect(read.chains).toEqual([
      expect.objectContaining({ chainId: 11155111, status: 'unavailable', paymaster: PAYMASTER_CHECKSUMMED, submission: 'relayer', relayerAddress: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/) }),
    ]);
    const [chain] = read.chains;
    expect(chain!.status === 'unavailable' && chain!.reason).toBeTruthy();
    expect(JSON.stringify(read)).not.toContain(DEAD_RPC);
    expect(await a.developer.sponsorship.funding.query()).toEqual(read);
    const viaGraphql = await graphql(app, b.cookies.support, '{ sponsorshipFunding { chainId status reason paymaster relayerAddress paymasterDepositWei lowDeposit } }');
    expect(viaGraphql.body.data).toEqual({
      sponsorshipFunding: [{ chainId: 11155111, status: 'unavailable', reason: (chain as { reason: string }).reason, paymaster: PAYMASTER_CHECKSUMMED, relayerAddress: chain!.relayerAddress, paymasterDepositWei: null, lowDeposit: null }],
    });
    expect((await graphql(app, undefined, '{ sponsorshipFunding { chainId } }')).status).toBe(401);
  });
});
