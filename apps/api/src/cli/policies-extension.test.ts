import { randomUUID } from 'node:crypto';
import { openDatabase, testDatabaseKinds } from '@wallet/db';
import { describe, expect, it } from 'vitest';
import { checkedFetch } from '../testing/response-contract.ts';
import { cliEnvironment, cliOf } from '../testing/cli-process.ts';
import { spawnService, suiteProcesses } from '../testing/service-process.ts';

/** Every /v1 answer is checked against the document the answering process serves. */
const fetchChecked = checkedFetch();

const { children, cleanups } = suiteProcesses();
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const operator = { type: 'operator', id: null };

describe('npm run policies -- extension, as a process', () => {
  // Registered only when PostgreSQL is configured, like the other suites (never reported as skipped).
  if ((testDatabaseKinds as readonly string[]).includes('postgres')) it('enables and disables on PostgreSQL, storing who and when, and audits each switch', async () => {
    const env = await cliEnvironment('extension-cli', cleanups, { postgres: true });
    const { cli } = cliOf(env);
    const key = await cli(['keys', 'create', '--partner', `extension-cli-pg-${randomUUID()}`]);
    const at = ['--project-id', key.projectId, '--env', 'production'];
    expect(await cli(['policies', 'extension', ...at, '--enable'])).toEqual({ projectId: key.projectId, environment: 'production', enabled: true, updatedAt: iso, updatedBy: operator });
    expect(await cli(['policies', 'extension', ...at, '--disable'])).toMatchObject({ environment: 'production', enabled: false, updatedBy: operator });

    const database = await openDatabase({ databaseUrl: env.DATABASE_URL!, migrate: false });
    cleanups.push(() => database.close());
    const rows = await database.prisma.permissionsExtension.findMany({ where: { projectId: key.projectId } });
    expect(rows.map((r) => [r.environment, r.enabled, r.updatedByType, r.updatedById])).toEqual([['production', false, 'operator', null]]);
    const audit = await database.prisma.auditLog.findMany({ where: { projectId: key.projectId, action: { startsWith: 'permissions.extension.' } }, orderBy: { id: 'asc' } });
    expect(audit.map((a) => [a.action, (a.details as { environment: string }).environment])).toEqual([
      ['permissions.extension.enable', 'production'],
      ['permissions.extension.disable', 'production'],
    ]);
  }, 120_000);

  it('on embedded PGlite, through the running service: the gated PUT is 403 until --enable, 200 after, 403 again after --disable; bad flags and unknown projects are refused', async () => {
    const env = await cliEnvironment('extension-cli', cleanups, { postgres: false });
    const { cli, refused } = cliOf(env);
    const service = await spawnService(env, children);
    const key = await cli(['keys', 'create', '--partner', `extension-cli-pglite-${randomUUID()}`]);
    const rest = async (method: string, urlPath: string, body: unknown) => {
      const response = await fetchChecked(`${service.url}${urlPath}`, { method, headers: { 'x-api-key': key.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const wallet = await rest('POST', '/v1/wallets', { type: 'EVM', userIdentifier: 'extension-cli', userIdentifierType: 'CUSTOM_ID' });
    const bind = (expectedRevision: number) => rest('PUT', `/v1/permissions-v2/wallets/${String(wallet.body.id)}/authorization-scope`, { expectedRevision, authorizationScopeId: 'org-1' });
    expect((await bind(0)).body).toMatchObject({ code: 'PERMISSIONS_V2_EXTENSION_UNAVAILABLE' });

    const at = ['--project-id', key.projectId, '--env', 'development'];
    const [enabled, neither, both, unknown, staging] = await Promise.all([
      cli(['policies', 'extension', ...at, '--enable']),
      refused(['policies', 'extension', ...at]),
      refused(['policies', 'extension', ...at, '--enable', '--disable']),
      refused(['policies', 'extension', '--project-id', randomUUID(), '--env', 'development', '--enable']),
      refused(['policies', 'extension', '--project-id', key.projectId, '--env', 'staging', '--enable']),
    ]);
    expect(enabled).toEqual({ projectId: key.projectId, environment: 'development', enabled: true, updatedAt: iso, updatedBy: operator });
    for (const usage of [neither, both]) expect(usage).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('exactly one of --enable and --disable') });
    expect(unknown).toEqual({ code: 'NOT_FOUND', message: 'Project not found' });
    expect(staging).toMatchObject({ code: 'INVALID_REQUEST' });

    const bound = await bind(0);
    expect(bound.status).toBe(200);
    expect(bound.body).toMatchObject({ authorizationScopeId: 'org-1', revision: 1 });

    expect(await cli(['policies', 'extension', ...at, '--disable'])).toMatchObject({ enabled: false, updatedBy: operator });
    const closed = await bind(1);
    expect(closed.status).toBe(403);
    expect(closed.body.code).toBe('PERMISSIONS_V2_EXTENSION_UNAVAILABLE');
  }, 400_000);
});
