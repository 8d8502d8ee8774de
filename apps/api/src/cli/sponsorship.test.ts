import { randomUUID } from 'node:crypto';
import { openDatabase, testDatabaseKinds } from '@wallet/db';
import { describe, expect, it } from 'vitest';
import { cliEnvironment, cliOf } from '../testing/cli-process.ts';
import { spawnService, suiteProcesses } from '../testing/service-process.ts';

const { children, cleanups } = suiteProcesses();
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const operator = { type: 'operator', id: null };
const defaults = { gasCapWei: '1000000000000000', dailyBudgetWei: '50000000000000000' };

describe('npm run sponsorship, as a process', () => {
  // Registered only when PostgreSQL is configured, like the other suites (never reported as skipped).
  if ((testDatabaseKinds as readonly string[]).includes('postgres')) it('enables with limits, pauses, resumes and disables on PostgreSQL, storing who and when, and audits each change', async () => {
    const env = await cliEnvironment('sponsorship-cli', cleanups, { postgres: true });
    const { cli } = cliOf(env);
    const key = await cli(['keys', 'create', '--partner', `sponsorship-cli-pg-${randomUUID()}`]);
    const at = ['--project-id', key.projectId, '--env', 'production'];
    expect(await cli(['sponsorship', 'enable', ...at, '--gas-cap-wei', '2000000000000000', '--daily-budget-wei', '100000000000000000'])).toEqual({
      projectId: key.projectId,
      environment: 'production',
      enabled: true,
      paused: false,
      gasCapWei: '2000000000000000',
      dailyBudgetWei: '100000000000000000',
      updatedAt: iso,
      updatedBy: operator,
    });
    expect(await cli(['sponsorship', 'pause', ...at])).toMatchObject({ enabled: true, paused: true, gasCapWei: '2000000000000000' });
    expect(await cli(['sponsorship', 'resume', ...at, '--gas-cap-wei', '3'])).toMatchObject({ enabled: true, paused: false, gasCapWei: '3', dailyBudgetWei: '100000000000000000' });
    expect(await cli(['sponsorship', 'disable', ...at])).toMatchObject({ enabled: false, paused: false, gasCapWei: '3' });

    const database = await openDatabase({ databaseUrl: env.DATABASE_URL!, migrate: false });
    cleanups.push(() => database.close());
    const rows = await database.prisma.sponsorshipSettings.findMany({ where: { projectId: key.projectId } });
    expect(rows.map((r) => [r.environment, r.enabled, r.paused, r.gasCapWei.toFixed(), r.dailyBudgetWei.toFixed(), r.updatedByType, r.updatedById])).toEqual([
      ['production', false, false, '3', '100000000000000000', 'operator', null],
    ]);
    const audit = await database.prisma.auditLog.findMany({ where: { projectId: key.projectId, action: { startsWith: 'sponsorship.' } }, orderBy: { id: 'asc' } });
    expect(audit.map((a) => [a.action, (a.details as { environment: string }).environment])).toEqual([
      ['sponsorship.enable', 'production'],
      ['sponsorship.pause', 'production'],
      ['sponsorship.resume', 'production'],
      ['sponsorship.disable', 'production'],
    ]);
  }, 120_000);

  it('on embedded PGlite, through the running service: prints the settings of each verb; bad verbs, numbers, environments and unknown projects are refused', async () => {
    const env = await cliEnvironment('sponsorship-cli', cleanups, { postgres: false });
    const { cli, refused } = cliOf(env);
    const service = await spawnService(env, children);
    const key = await cli(['keys', 'create', '--partner', `sponsorship-cli-pglite-${randomUUID()}`]);
    const at = ['--project-id', key.projectId, '--env', 'development'];
    const [paused, noVerb, badVerb, zeroCap, badBudget, hugeCap, unknown, staging, noProject] = await Promise.all([
      cli(['sponsorship', 'pause', ...at]),
      refused(['sponsorship', ...at]),
      refused(['sponsorship', 'toggle', ...at]),
      refused(['sponsorship', 'enable', ...at, '--gas-cap-wei', '0']),
      refused(['sponsorship', 'enable', ...at, '--daily-budget-wei', '0.05']),
      refused(['sponsorship', 'enable', ...at, '--gas-cap-wei', (1n << 256n).toString()]),
      refused(['sponsorship', 'enable', '--project-id', randomUUID(), '--env', 'development']),
      refused(['sponsorship', 'enable', '--project-id', key.projectId, '--env', 'staging']),
      refused(['sponsorship', 'enable', '--env', 'development']),
    ]);
    // Paused before ever being enabled: still disabled, with the default limits.
    expect(paused).toEqual({ projectId: key.projectId, environment: 'development', enabled: false, paused: true, ...defaults, updatedAt: iso, updatedBy: operator });
    for (const usage of [noVerb, badVerb]) expect(usage).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('enable|disable|pause|resume') });
    expect(zeroCap).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/^--gas-cap-wei must be a positive integer in wei/) });
    expect(badBudget).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/^--daily-budget-wei must be a positive integer in wei/) });
    expect(hugeCap).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/^--gas-cap-wei must be/) });
    expect(unknown).toEqual({ code: 'NOT_FOUND', message: 'Project not found' });
    expect(staging).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(noProject).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringMatching(/^--project-id is required/) });

    expect(await cli(['sponsorship', 'enable', ...at, '--daily-budget-wei', '7'])).toEqual({ projectId: key.projectId, environment: 'development', enabled: true, paused: true, gasCapWei: defaults.gasCapWei, dailyBudgetWei: '7', updatedAt: iso, updatedBy: operator });
    expect(await cli(['sponsorship', 'resume', ...at])).toMatchObject({ enabled: true, paused: false, dailyBudgetWei: '7' });
    expect(service.url).toMatch(/^http/);
  }, 400_000);
});
