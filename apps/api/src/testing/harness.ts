import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Clock } from '@wallet/domain';
import { createTestDatabase, type DatabaseKind } from '@wallet/db';
import { createApp, type AppOptions } from '../app.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { createServices, type ServiceOptions, type Services } from '../services.ts';

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

/**
 * The real app on a real port over a real database (in-memory PGlite or a fresh PostgreSQL
 * database). Logs are captured so tests can check that no secret was ever written.
 */
export async function startTestApp(
  kind: DatabaseKind,
  options: {
    clock?: Clock;
    host?: string;
    chains?: ServiceOptions['chains'];
    /** Extra configuration variables (e.g. WEBHOOK_CA_FILE, WEBHOOK_TIMEOUT_MS). */
    env?: Record<string, string>;
    webhooks?: ServiceOptions['webhooks'];
    /** createApp options (default: as outside local mode, e.g. Secure cookies, no public introspection). */
    app?: Pick<AppOptions, 'secureCookies' | 'graphiql' | 'publicIntrospection'>;
  } = {},
) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-test-'));
  const database = await createTestDatabase(kind);
  const config = loadConfig({ APP_ENV: 'local', DATA_DIR: dataDir, LOG_LEVEL: 'debug', ...options.env });
  const logLines: string[] = [];
  const logger = createLogger('debug', { write: (line: string) => void logLines.push(line) });
  const services: Services = await createServices(config, { database, clock: options.clock, chains: options.chains, webhooks: options.webhooks });
  const app = createApp({ services, logger, ...options.app });
  const host = options.host ?? '127.0.0.1';
  const server = app.listen(0, host);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const issuedKeys: string[] = [];

  async function request(method: string, urlPath: string, options: RequestOptions = {}): Promise<TestResponse> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.key !== undefined) headers['x-api-key'] = options.key;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    if (options.rawBody !== undefined) headers['content-type'] ??= 'application/json';
    const response = await fetch(`${baseUrl}${urlPath}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON; tests assert on that
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  return {
    baseUrl,
    services,
    database,
    dataDir,
    logLines,
    request,
    async createKey(args: { partner?: string; project?: string; plan?: 'free' | 'starter' | 'growth' | 'scale'; rateLimitPerMinute?: number; ipAllowlist?: string[] } = {}) {
      const issued = await services.apiKeys.create({
        partner: args.partner ?? `partner-${Math.random().toString(36).slice(2)}`,
        project: args.project,
        plan: args.plan ?? 'scale',
        rateLimitPerMinute: args.rateLimitPerMinute ?? (args.plan ? undefined : 0),
        ipAllowlist: args.ipAllowlist,
      });
      issuedKeys.push(issued.apiKey);
      return issued;
    },
    /** Every secret this app handed out or holds: API keys and the key-encryption keys. */
    secrets(): string[] {
      const keks = JSON.parse(readFileSync(path.join(dataDir, 'keks.json'), 'utf8')) as unknown;
      const kekValues = JSON.stringify(keks).match(/[A-Za-z0-9+/]{40,}={0,2}/g) ?? [];
      return [...issuedKeys, ...kekValues];
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await services.close();
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;
