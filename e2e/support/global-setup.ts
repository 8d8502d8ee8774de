import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, secretInOutput, startStack } from './stack.ts';

/** One fresh stack for the run; the tests read where it is from the environment (workers inherit it). */
export default async function globalSetup() {
  const artifacts = path.join(repoRoot, 'e2e/artifacts');
  rmSync(artifacts, { recursive: true, force: true });
  mkdirSync(artifacts, { recursive: true });
  const stack = await startStack();
  process.env.E2E_API_URL = stack.apiUrl;
  process.env.E2E_CONSOLE_URL = stack.consoleUrl;
  process.env.E2E_OWNER = JSON.stringify(stack.owner);
  process.env.E2E_SUPPORT = JSON.stringify(stack.support);
  process.env.E2E_DATA_DIR = stack.dataDir;
  const secretsFile = path.join(stack.dataDir, 'e2e-secrets');
  writeFileSync(secretsFile, '');
  process.env.E2E_SECRETS_FILE = secretsFile;
  // After the run: no password, session token, API key or webhook secret the tests saw was logged.
  return async () => {
    const seen = existsSync(secretsFile) ? readFileSync(secretsFile, 'utf8').split('\n').filter(Boolean) : [];
    const leak = secretInOutput(stack.output(), [
      { kind: 'staff password', value: stack.owner.password },
      { kind: 'staff password', value: stack.support.password },
      ...seen.map((value) => ({ kind: 'secret seen by a test (API key, webhook secret or session token)', value })),
    ]);
    await stack.stop();
    // The service's own output, for a failed run: in e2e/artifacts, and its error lines here.
    writeFileSync(path.join(artifacts, 'service.log'), stack.output());
    const errors = stack.output().split('\n').filter((line) => /"level":(50|60)/.test(line));
    if (leak) throw new Error(leak);
    if (errors.length > 0) process.stdout.write(`service error lines (${errors.length}, all in e2e/artifacts/service.log):\n${errors.slice(-20).join('\n')}\n`);
  };
}
