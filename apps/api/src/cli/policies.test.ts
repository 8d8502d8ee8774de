import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase, testDatabaseKinds } from '@wallet/db';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../config.ts';
import { spawnService, suiteProcesses, type ServiceProcess } from '../testing/service-process.ts';

const run = promisify(execFile);
const { children, cleanups } = suiteProcesses();

const example = JSON.parse(readFileSync(path.resolve(repoRoot, '../shared/spec/policy-examples/evm-guardrails.json'), 'utf8')) as Record<string, unknown>;

/**
 * The whole command set on the embedded database (through the running service, then directly once
 * it stopped); on PostgreSQL, where the CLI always opens the database itself like the stopped case,
 * one apply and one list show the same path works there (each CLI run costs seconds).
 */
describe('the policies CLI as a process', () => {
  const postgres = (testDatabaseKinds as readonly string[]).includes('postgres');
  // Registered only when PostgreSQL is configured, like the other suites (never reported as skipped).
  if (postgres) it('applies and lists on PostgreSQL', async () => {
    const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 't');
    cleanups.push(scratch.drop);
    const dir = mkdtempSync(path.join(tmpdir(), 'wallet-policies-cli-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const env: Record<string, string> = { ...(process.env as Record<string, string>), APP_ENV: 'local', DATA_DIR: dir, DATABASE_URL: scratch.url, LOCAL_DEVNETS: 'off' };
    delete env.INIT_CWD;
    const cli = async (args: string[]) => JSON.parse((await run(process.execPath, ['--import', 'tsx', `apps/api/src/cli/${args[0]}.ts`, ...args.slice(1)], { cwd: repoRoot, env })).stdout.trim());
    const key = await cli(['keys', 'create', '--partner', `policies-cli-pg-${randomUUID()}`]);
    const file = path.join(dir, 'guardrails.json');
    writeFileSync(file, JSON.stringify(example));
    const at = ['--project-id', key.projectId, '--env', 'development'];
    expect(await cli(['policies', 'apply', ...at, '--file', file])).toEqual({ policyId: 'evm-guardrails', version: '1', status: 'active' });
    expect((await cli(['policies', 'list', ...at])).policies.map((p: { policyId: string; version: string }) => [p.policyId, p.version])).toEqual([['evm-guardrails', '1']]);
  }, 120_000);

  it('on embedded PGlite: applies (version 1, then 2), lists, keeps development and production apart, deactivates; refuses bad documents and unknown projects', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wallet-policies-cli-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      APP_ENV: 'local',
      DATA_DIR: path.join(dir, 'data'),
      PORT: '0',
      DATABASE_URL: '',
      LOCAL_DEVNETS: 'off',
    };
    delete env.INIT_CWD;
    const file = (name: string, document: unknown) => {
      const at = path.join(dir, name);
      writeFileSync(at, JSON.stringify(document));
      return at;
    };
    const command = (args: string[]) => run(process.execPath, ['--import', 'tsx', `apps/api/src/cli/${args[0]}.ts`, ...args.slice(1)], { cwd: repoRoot, env });
    const cli = async (args: string[]) => {
      const { stdout } = await command(args);
      const lines = stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      return JSON.parse(lines[0]!);
    };
    /** A refused command: exit code 1, nothing on stdout, one JSON error line on stderr. */
    const refused = async (args: string[]) => {
      const failure = (await command(args).then(
        () => null,
        (e: unknown) => e,
      )) as { code: number; stdout: string; stderr: string } | null;
      expect(failure).not.toBeNull();
      expect(failure!.code).toBe(1);
      expect(failure!.stdout).toBe('');
      const lines = failure!.stderr.trim().split('\n');
      return JSON.parse(lines.at(-1)!);
    };

    // On the embedded database the CLI goes through the running service (it holds the database).
    let service: ServiceProcess | null = await spawnService(env, children);
    const key = await cli(['keys', 'create', '--partner', `policies-cli-pglite-${randomUUID()}`]);
    const projectId: string = key.projectId;
    const at = (env: string) => ['--project-id', projectId, '--env', env];
    const guardrails = file('guardrails.json', example);

    // Each CLI run costs seconds of tsx start-up: independent commands run side by side.
    const [first, emptyProduction, unknown, usage, staging] = await Promise.all([
      cli(['policies', 'apply', ...at('development'), '--file', guardrails]),
      // Production is another set of records: empty while development has a policy.
      cli(['policies', 'list', ...at('production')]),
      refused(['policies', 'apply', '--project-id', randomUUID(), '--env', 'development', '--file', guardrails]),
      refused(['policies', 'apply', ...at('development')]),
      refused(['policies', 'list', ...at('staging')]),
    ]);
    expect(first).toEqual({ policyId: 'evm-guardrails', version: '1', status: 'active' });
    expect(emptyProduction).toEqual({ policies: [] });
    expect(unknown).toEqual({ code: 'NOT_FOUND', message: 'Project not found' });
    expect(usage).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('--file is required') });
    expect(staging).toMatchObject({ code: 'INVALID_REQUEST' });

    const second = file('second.json', { ...example, metadata: { productMode: 'guardrail', description: 'second' } });
    const [applied, production, bad] = await Promise.all([
      cli(['policies', 'apply', ...at('development'), '--file', second]),
      cli(['policies', 'apply', ...at('production'), '--file', guardrails]),
      // Refused: a rule without an effect and an unknown top-level key, each at its JSON path.
      refused(['policies', 'apply', ...at('development'), '--file', file('bad.json', { ...example, rules: [{ id: 'r', actions: 'all' }], extra: 1 })]),
    ]);
    expect(applied).toEqual({ policyId: 'evm-guardrails', version: '2', status: 'active' });
    expect(production).toEqual({ policyId: 'evm-guardrails', version: '1', status: 'active' });
    expect(bad).toMatchObject({ code: 'INVALID_REQUEST' });
    const paths = (bad.details as Array<{ path: string }>).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['rules.0.effect', 'extra']));

    const listed = await cli(['policies', 'list', ...at('development')]);
    expect(listed.policies).toHaveLength(1);
    expect(listed.policies[0]).toMatchObject({
      policyId: 'evm-guardrails',
      version: '2',
      status: 'active',
      environment: 'development',
      createdBy: { type: 'operator', id: null },
      definition: { version: '2', metadata: { description: 'second' } },
    });

    expect(await cli(['policies', 'deactivate', ...at('development'), '--policy-id', 'evm-guardrails'])).toEqual({ policyId: 'evm-guardrails', version: '2', status: 'inactive' });
    expect(await refused(['policies', 'deactivate', ...at('development'), '--policy-id', 'evm-guardrails'])).toEqual({ code: 'NOT_FOUND', message: 'Policy not found' });

    if (service) {
      // With the service stopped, the CLI opens the embedded database itself and sees the same records.
      service.child.kill('SIGTERM');
      await new Promise((resolve) => (service!.child.exitCode !== null ? resolve(null) : service!.child.once('exit', resolve)));
      service = null;
    }
    const [development, productionList] = await Promise.all([cli(['policies', 'list', ...at('development')]), cli(['policies', 'list', ...at('production')])]);
    expect(development).toEqual({ policies: [] });
    expect(productionList.policies.map((p: { environment: string; version: string }) => [p.environment, p.version])).toEqual([['production', '1']]);
  }, 400_000);
});
