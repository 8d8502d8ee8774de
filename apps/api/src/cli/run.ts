// Only what the path through the running service needs is imported up front: every CLI run
// starts here, and loading the services (database, chains) costs seconds it then never uses.
import { ApiError } from '@wallet/domain/errors.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { readControlFile } from '../local/control-file.ts';
import type { CommandName } from './commands.ts';

/** Runs a command through the running service when it holds the embedded database, else directly. */
export async function execute(name: CommandName, args: Record<string, unknown>): Promise<unknown> {
  const config = loadConfig();
  const control = config.databaseUrl ? null : readControlFile(config.dataDir);
  if (control) {
    const response = await fetch(`${control.url}/internal/cli/${name}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${control.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(args),
    });
    const body = (await response.json()) as Record<string, unknown>;
    if (!response.ok) {
      // The service's error body as it is (`details` of a refused policy document included).
      const { code, message, ...extra } = body;
      throw new ApiError(response.status, String(code), String(message), extra);
    }
    return body;
  }
  const [{ createServices }, { runCommand }, { createChainRegistry }] = await Promise.all([import('../services.ts'), import('./commands.ts'), import('@wallet/chains')]);
  // The chains of CHAINS (the nonce repair reads and signs on them).
  const services = await createServices(config, { chains: createChainRegistry(config.chains) });
  try {
    return await runCommand(services, name, args);
  } finally {
    await services.close();
  }
}

/** Prints the result as one JSON line; errors go to stderr as the usual error object, exit code 1. */
export async function main(run: () => Promise<unknown>): Promise<void> {
  try {
    process.stdout.write(`${JSON.stringify(await run())}\n`);
  } catch (error) {
    reportError(error);
  }
}

/** The usual error object on stderr, exit code 1. */
export function reportError(error: unknown): void {
  const body =
    error instanceof ApiError
      ? error.toBody()
      : { code: error instanceof ConfigError || error instanceof UsageError ? 'INVALID_REQUEST' : 'INTERNAL_ERROR', message: (error as Error).message };
  process.stderr.write(`${JSON.stringify(body)}\n`);
  process.exitCode = 1;
}

export class UsageError extends Error {}
