import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { repoRoot, startStack } from './stack.ts';

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
  return async () => {
    await stack.stop();
  };
}
