import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { openDatabase } from '@wallet/db';
import { callerOf } from '@wallet/domain';
import { loadConfig, repoRoot } from '../config.ts';
import { createServices } from '../services.ts';
import { cliEnvironment } from './cli-process.ts';
import { spawnSigner } from './signer-process.ts';

const run = promisify(execFile);

/**
 * For CLI process tests on PostgreSQL: a scratch database the CLI opens itself, the data directory's
 * signer process, services over the same database in this process, a development key of a new partner with the permissions v2
 * extension on, and `users(args)` running `npm run users -- …` as a process. `cleanups` collects
 * what the suite's afterAll undoes.
 */
export async function cliOnPostgres(partner: string, cleanups: (() => Promise<unknown>)[]) {
  const env = await cliEnvironment(partner, cleanups, { postgres: true });

  // The signer of this data directory, as npm start would run it: these services and the CLI processes both sign through it.
  const signer = await spawnSigner({ APP_ENV: 'local', DATA_DIR: env.DATA_DIR!, LOG_LEVEL: 'warn' });
  cleanups.push(async () => void signer.kill('SIGKILL'));
  const database = await openDatabase({ databaseUrl: env.DATABASE_URL! });
  const services = await createServices(loadConfig({ APP_ENV: 'local', DATA_DIR: env.DATA_DIR! }), { database });
  cleanups.push(async () => {
    await services.close();
    await database.close();
  });
  const issued = await services.apiKeys.create({ partner, plan: 'scale', rateLimitPerMinute: 0, environment: 'development' });
  const caller = callerOf(await services.apiKeys.authenticate(issued.apiKey, '127.0.0.1'), null);
  const operator = await services.policies.operatorScope(issued.projectId, 'development');
  await services.permissionsExtension.set(operator, true);
  const users = (args: string[]) => run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/users.ts', ...args], { cwd: repoRoot, env });
  return { services, issued, caller, operator, users };
}
