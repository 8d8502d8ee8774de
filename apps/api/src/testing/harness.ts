import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureLocalRecoveryKey, fileKekProvider, type Clock, type KeyVault } from '@wallet/domain';
import { createLocalKeyVault } from '@wallet/domain/custody/local-vault.ts';
import { createInProcessSigner, type InProcessSigner } from '@wallet/signer/in-process';
import { apiVault, renewSharesIn } from '../custody/signer-connection.ts';
import { expect } from 'vitest';
import { createStores, createTestDatabase, type Database, type DatabaseKind } from '@wallet/db';
import { createApp, type AppOptions } from '../app.ts';
import { answerClientErrorsWithJson } from '../http/client-errors.ts';
import { loadConfig } from '../config.ts';
import { createLogger } from '../logger.ts';
import { createServices, type ServiceOptions, type Services } from '../services.ts';
import { appendContractLog, servedResponseContract, type ServedResponseContract } from './response-contract.ts';

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
  /**
   * Why this answer is not checked against /v1/openapi.json (only for requests that are
   * deliberately not HTTP a client would send); every other /v1 answer is.
   */
  uncheckedBecause?: string;
}

/**
 * Appends `<validated answers>\t<suite>\t<operationId:status,…>` to the file RESPONSE_CONTRACT_LOG
 * names, when set, so a run can report how many answers its suites checked against the document,
 * and which documented answers they received (contract-coverage.ts).
 */
function logValidated(contract: ServedResponseContract) {
  const file = process.env.RESPONSE_CONTRACT_LOG;
  if (!file) return;
  appendContractLog(file, path.relative(process.cwd(), expect.getState().testPath ?? 'unknown'), contract.checkedPairs);
}

/** Kinds of secrets the log check looks for. */
export type SecretKind = 'API key' | 'KEK' | 'staff password' | 'session token' | 'webhook secret';

type Method = (...args: never[]) => Promise<unknown>;

/**
 * Wraps `target[name]` so that every secret its results hold (read by `pick`) is recorded; the
 * call itself is unchanged. Services call each other through these objects (the console calls
 * `apiKeys.create`, `ensureLocalOwner` calls `this.createAccount`), so those are recorded too.
 */
function recordFrom<T extends object>(target: T, name: keyof T, pick: (result: any) => Array<string | undefined>, record: (value: string) => void) {
  const original = target[name] as Method;
  (target as Record<keyof T, Method>)[name] = async function (this: unknown, ...args: never[]) {
    const result = await original.apply(this, args);
    for (const value of pick(result)) if (value) record(value);
    return result;
  };
}

function leakIn(lines: string[], secrets: Map<string, SecretKind>): string | null {
  for (const [index, line] of lines.entries()) {
    for (const [value, kind] of secrets) if (line.includes(value)) return `a ${kind} appears in log line ${index + 1} of ${lines.length}`;
  }
  return null;
}

/**
 * The real app on a real port over a real database (in-memory PGlite or a fresh PostgreSQL
 * database). Logs are captured, and every API key, staff password, session token and webhook secret
 * the services hand out is recorded: `close()` fails the suite when any of them, or a KEK, appears
 * in the logs (`assertNoSecretsInLogs`).
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
    signing?: ServiceOptions['signing'];
    calls?: ServiceOptions['calls'];
    /** createApp options (default: as outside local mode, e.g. Secure cookies, no public introspection). */
    app?: Pick<AppOptions, 'secureCookies' | 'graphiql' | 'publicIntrospection'>;
    /** Another process of that app's deployment: its database and data directory (KEKs), which it closes. */
    alongside?: { database: Database; dataDir: string; signer?: InProcessSigner };
    /** New Ed25519 wallets as XOR halves in the signer, as before FROST (for the conversion's tests). */
    xorEd25519Wallets?: boolean;
    /** Passed to the in-process signer (adversarial tests). */
    signerTamper?: (method: string, result: unknown) => unknown;
  } = {},
) {
  const { alongside } = options;
  const dataDir = alongside?.dataDir ?? mkdtempSync(path.join(tmpdir(), 'wallet-test-'));
  const database = alongside?.database ?? (await createTestDatabase(kind));
  const config = loadConfig({ APP_ENV: 'local', DATA_DIR: dataDir, LOG_LEVEL: 'debug', ...options.env });
  const logLines: string[] = [];
  const logger = createLogger('debug', { write: (line: string) => void logLines.push(line) });
  // The signer's own handlers (vault-handlers.ts: FROST participant 2, limits, epochs) run in this
  // process over an in-memory store, behind the same vault RPC codec as the signer process; the API
  // side is the production vault (FROST participant 1 under the API's KEK in DATA_DIR/api). Tests of
  // the signer process itself spawn it.
  const signerKeks = fileKekProvider(path.join(dataDir, 'signer'));
  const signer = alongside?.signer ?? createInProcessSigner({ keks: signerKeks, recovery: ensureLocalRecoveryKey(path.join(dataDir, 'recovery')), tamper: options.signerTamper });
  const frostVault = apiVault(config, signer, renewSharesIn(createStores(database)));
  const vault: KeyVault = options.xorEd25519Wallets
    ? { ...frostVault, createWalletKey: createLocalKeyVault({ keks: signerKeks, xorEd25519Wallets: true }).createWalletKey }
    : frostVault;
  const services: Services = await createServices(config, { database, clock: options.clock, chains: options.chains, webhooks: options.webhooks, signing: options.signing, calls: options.calls, logger, vault, signerCaller: signer });
  const recorded = new Map<string, SecretKind>();
  const as = (kind: SecretKind) => (value: string) => void recorded.set(value, kind);
  recordFrom(services.apiKeys, 'create', (r) => [r.apiKey], as('API key'));
  recordFrom(services.apiKeys, 'rotate', (r) => [r.apiKey], as('API key'));
  recordFrom(services.staff, 'createAccount', (r) => [r.password], as('staff password'));
  recordFrom(services.staff, 'signIn', (r) => [r.token], as('session token'));
  recordFrom(services.webhooks, 'set', (r) => [r.secret], as('webhook secret'));
  recordFrom(services.webhooks, 'rotateSecret', (r) => [r.secret], as('webhook secret'));
  const app = createApp({ services, logger, ...options.app });
  const host = options.host ?? '127.0.0.1';
  const server = app.listen(0, host);
  // As main.ts: longer than the client's idle keep-alive (fetch's ~4 s), so a test's request never
  // reuses a connection the server is closing (ECONNRESET when a long synchronous step delays timers).
  server.keepAliveTimeout = 65_000;
  answerClientErrorsWithJson(server);
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const { port } = server.address() as AddressInfo;
  const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const contract = servedResponseContract(baseUrl);

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
    if (options.uncheckedBecause === undefined) {
      await contract.check({ method, url: urlPath, status: response.status, contentType: response.headers.get('content-type'), body: parsed });
    }
    return { status: response.status, headers: response.headers, body: parsed };
  }

  return {
    baseUrl,
    services,
    database,
    dataDir,
    /** The signer's handlers in this process, with their in-memory log and epochs. */
    signer,
    vault,
    logLines,
    request,
    /** Every /v1 answer `request` receives is checked against the served document (response-contract.ts). */
    responseContract: contract,
    async createKey(args: { partner?: string; project?: string; plan?: 'free' | 'starter' | 'growth' | 'scale'; rateLimitPerMinute?: number; ipAllowlist?: string[] } = {}) {
      const issued = await services.apiKeys.create({
        partner: args.partner ?? `partner-${Math.random().toString(36).slice(2)}`,
        project: args.project,
        plan: args.plan ?? 'scale',
        rateLimitPerMinute: args.rateLimitPerMinute ?? (args.plan ? undefined : 0),
        ipAllowlist: args.ipAllowlist,
      });
      return issued;
    },
    /** Every secret this app handed out or holds, by kind: API keys, staff passwords, session tokens, webhook secrets, KEKs. */
    secretsByKind(): Map<string, SecretKind> {
      const all = new Map(recorded);
      for (const file of [path.join(dataDir, 'api', 'keks.json'), path.join(dataDir, 'signer', 'keks.json')]) {
        if (!existsSync(file)) continue;
        const keks = JSON.parse(readFileSync(file, 'utf8')) as unknown;
        for (const value of JSON.stringify(keks).match(/[A-Za-z0-9+/]{40,}={0,2}/g) ?? []) all.set(value, 'KEK');
      }
      return all;
    },
    secrets(): string[] {
      return [...this.secretsByKind().keys()];
    },
    /** Throws, naming the kind and log line but never the value, when a secret appears in the captured logs. */
    assertNoSecretsInLogs(): void {
      const leak = leakIn(logLines, this.secretsByKind());
      if (leak) throw new Error(leak);
    },
    /**
     * Stops everything, then fails when a secret was logged (so every suite checks its logs), or
     * when an answer broke the document even though its test went on.
     */
    async close() {
      const secrets = this.secretsByKind();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await services.close();
      if (!alongside) {
        await database.close();
        rmSync(dataDir, { recursive: true, force: true });
      }
      const leak = leakIn(logLines, secrets);
      if (leak) throw new Error(leak);
      logValidated(contract);
      if (contract.firstMismatch) throw new Error(`An answer broke /v1/openapi.json: ${contract.firstMismatch}`);
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;
