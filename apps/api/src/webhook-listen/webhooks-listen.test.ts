import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { verifyWebhook, WebhookVerificationError } from '@wallet/client';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../config.ts';
import { localServiceEnv, spawnService, suiteProcesses, type ServiceProcess } from '../testing/service-process.ts';
import type { ListenLine } from './listener.ts';
import { listenersDir, listenDir, listenerRecordFile } from './paths.ts';

const run = promisify(execFile);
const { children, cleanups } = suiteProcesses();

interface Forwarded {
  rawBody: string;
  headers: http.IncomingHttpHeaders;
  path: string;
}

/** The developer's app: plain HTTP on loopback, recording what arrives, answering 202. */
async function startApp(): Promise<{ url: string; received: Forwarded[] }> {
  const received: Forwarded[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ rawBody: Buffer.concat(chunks).toString('utf8'), headers: req.headers, path: req.url ?? '' });
      res.writeHead(202).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => server.close(resolve)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
}

interface ListenProcess {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  lines: () => ListenLine[];
  exited: Promise<number | null>;
}

function describeSuite() {
  const dir = mkdtempSync(path.join(tmpdir(), 'wallet-listen-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  const dataDir = path.join(dir, 'data');
  const env = localServiceEnv(dataDir, { WEBHOOK_RETRY_BASE_MS: '200', WEBHOOK_RETRY_MAX_MS: '1000' });
  delete env.INIT_CWD;
  const command = (args: string[], extraEnv: Record<string, string> = {}) =>
    run(process.execPath, ['--import', 'tsx', `apps/api/src/cli/${args[0]}.ts`, ...args.slice(1)], { cwd: repoRoot, env: { ...env, ...extraEnv } });
  const cli = async (args: string[]) => JSON.parse((await command(args)).stdout.trim()) as Record<string, unknown>;

  /** Starts `webhooks listen` and resolves once it says it is ready. */
  async function listen(args: string[]): Promise<ListenProcess> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/webhooks.ts', 'listen', ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await Promise.race([
      expect.poll(() => stderr, { timeout: 60_000, interval: 100 }).toMatch(/webhooks listen: ready: /),
      exited.then((code) => {
        throw new Error(`listen exited with ${code}: ${stderr}`);
      }),
    ]);
    return {
      child,
      stdout: () => stdout,
      stderr: () => stderr,
      lines: () => stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as ListenLine),
      exited,
    };
  }
  return { dataDir, env, command, cli, listen };
}

/** `npm run webhooks -- listen` as processes, against the service process on the embedded database. */
describe('npm run webhooks -- listen', () => {
  const { dataDir, env, command, cli, listen } = describeSuite();
  const previous = { url: 'https://example.com/old-hooks', eventTypes: ['wallet.created', 'test.ping'], enabled: false };
  let service: ServiceProcess;
  beforeAll(async () => {
    service = await spawnService(env, children);
  });
  const endpointOf = async (apiKeyId: string) => {
    const shown = await cli(['webhooks', 'show', '--key-id', apiKeyId]);
    return { url: shown.url, eventTypes: shown.eventTypes, enabled: shown.enabled };
  };

  it('forwards signed deliveries unchanged and prints each as a JSON line; restores the endpoint on SIGINT', { timeout: 180_000 }, async () => {
    const key = await cli(['keys', 'create', '--partner', 'listen-forward']);
    const apiKeyId = String(key.apiKeyId);
    const set = await cli(['webhooks', 'set', '--key-id', apiKeyId, '--url', previous.url, '--events', previous.eventTypes.join(','), '--disabled']);
    const secret = String(set.secret);
    expect(secret).toMatch(/^whsec_/);
    const app = await startApp();

    const listener = await listen(['--key-id', apiKeyId, '--forward-to', app.url]);
    const during = await endpointOf(apiKeyId);
    expect(during).toEqual({ url: expect.stringMatching(/^https:\/\/127\.0\.0\.1:\d+\/$/), eventTypes: previous.eventTypes, enabled: true });
    expect(existsSync(listenerRecordFile(dataDir, apiKeyId))).toBe(true);
    // The local CA was created on first use, its key readable by the owner only.
    expect(statSync(path.join(listenDir(dataDir), 'ca', 'ca-key.pem')).mode & 0o777).toBe(0o600);

    // test.ping: the service reaches the listener over verified HTTPS; the app's status comes back.
    const ping = await cli(['webhooks', 'test', '--key-id', apiKeyId]);
    expect(ping).toMatchObject({ ok: true, statusCode: 202, error: null });
    // wallet.created through the worker.
    const created = await fetch(`${service.url}/v1/wallets`, {
      method: 'POST',
      headers: { 'x-api-key': String(key.apiKey), 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'EVM', userIdentifier: 'listen@example.com', userIdentifierType: 'EMAIL' }),
    });
    expect(created.status).toBe(201);
    const wallet = (await created.json()) as { id: string };
    await expect.poll(() => app.received.length, { timeout: 30_000 }).toBe(2);
    await expect.poll(() => listener.lines().length, { timeout: 10_000 }).toBe(2);

    const lines = listener.lines();
    for (const [index, forwarded] of app.received.entries()) {
      expect(forwarded.path).toBe('/hooks');
      expect(forwarded.headers['content-type']).toBe('application/json');
      expect(verifyWebhook(forwarded.rawBody, forwarded.headers, secret)).toBe(true);
      expect(() => verifyWebhook(forwarded.rawBody, forwarded.headers, `${secret}x`)).toThrow(WebhookVerificationError);
      const envelope = JSON.parse(forwarded.rawBody) as { id: string; type: string; data: Record<string, unknown> };
      expect(forwarded.headers['webhook-id']).toBe(envelope.id);
      const line = lines.find((l) => l.webhookId === envelope.id)!;
      expect(line).toEqual({
        receivedAt: expect.any(String),
        webhookId: envelope.id,
        webhookTimestamp: forwarded.headers['webhook-timestamp'],
        event: envelope,
        forward: { url: app.url, statusCode: 202, latencyMs: expect.any(Number), error: null },
      });
      expect(envelope.type).toBe(index === 0 ? 'test.ping' : 'wallet.created');
    }
    expect((JSON.parse(app.received[1]!.rawBody) as { data: { walletId: string } }).data.walletId).toBe(wallet.id);

    listener.child.kill('SIGINT');
    expect(await listener.exited).toBe(0);
    expect(listener.stderr()).toMatch(/restored the endpoint to https:\/\/example\.com\/old-hooks/);
    expect(listener.stdout().split('\n').filter(Boolean)).toHaveLength(2);
    expect(await endpointOf(apiKeyId)).toEqual(previous);
    expect(existsSync(listenerRecordFile(dataDir, apiKeyId))).toBe(false);
    // Secrets never reach the service's output, and the listener never printed the existing one.
    expect(service.output()).not.toContain(secret);
    expect(listener.stdout() + listener.stderr()).not.toContain(secret);

    // A key without an endpoint: the listener creates one (every event type), shows its secret once
    // on stderr, and disables it on exit.
    const bare = await cli(['keys', 'create', '--partner', 'listen-bare']);
    const bareId = String(bare.apiKeyId);
    const creating = await listen(['--key-id', bareId, '--forward-to', app.url]);
    const shownSecret = /signing secret, shown only now[^:]*: (whsec_\S+)/.exec(creating.stderr())?.[1];
    expect(shownSecret).toBeDefined();
    expect(creating.stdout()).toBe('');
    expect((await endpointOf(bareId)).eventTypes).toHaveLength(12);
    expect(await cli(['webhooks', 'test', '--key-id', bareId])).toMatchObject({ ok: true, statusCode: 202 });
    expect(verifyWebhook(app.received[2]!.rawBody, app.received[2]!.headers, shownSecret!)).toBe(true);
    creating.child.kill('SIGTERM');
    expect(await creating.exited).toBe(0);
    expect(await endpointOf(bareId)).toMatchObject({ enabled: false });
    expect(service.output()).not.toContain(shownSecret);
  });

  it('after a SIGKILL the next listen, or listen --restore, restores the endpoint; a second listener for the key is refused', { timeout: 180_000 }, async () => {
    const key = await cli(['keys', 'create', '--partner', 'listen-kill']);
    const apiKeyId = String(key.apiKeyId);
    await cli(['webhooks', 'set', '--key-id', apiKeyId, '--url', previous.url, '--events', previous.eventTypes.join(','), '--disabled']);

    const killed = await listen(['--key-id', apiKeyId]);
    const killedUrl = (await endpointOf(apiKeyId)).url;
    // While it runs, another listener for the same key is refused and changes nothing.
    const second = await command(['webhooks', 'listen', '--key-id', apiKeyId]).then(
      () => null,
      (e: unknown) => e as { code: number; stderr: string },
    );
    expect(second?.code).toBe(1);
    expect(JSON.parse(second!.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(`pid ${killed.child.pid}`) });
    killed.child.kill('SIGKILL');
    await killed.exited;
    expect(await endpointOf(apiKeyId)).toEqual({ url: killedUrl, eventTypes: previous.eventTypes, enabled: true });

    // The next listen restores first, then takes the endpoint over again; SIGTERM restores it.
    const next = await listen(['--key-id', apiKeyId]);
    expect(next.stderr()).toMatch(new RegExp(`a previous listener \\(pid ${killed.child.pid}\\) did not stop cleanly: restored the endpoint to https://example.com/old-hooks`));
    expect((await endpointOf(apiKeyId)).url).not.toBe(killedUrl);
    next.child.kill('SIGTERM');
    expect(await next.exited).toBe(0);
    expect(await endpointOf(apiKeyId)).toEqual(previous);

    // Killed again: `listen --restore` puts it back (one JSON line) without starting a listener.
    const again = await listen(['--key-id', apiKeyId]);
    again.child.kill('SIGKILL');
    await again.exited;
    expect((await endpointOf(apiKeyId)).enabled).toBe(true);
    const restored = await cli(['webhooks', 'listen', '--restore']);
    expect(restored).toEqual({ restored: [{ apiKeyId, listenerPid: again.child.pid, outcome: expect.stringContaining('restored the endpoint to https://example.com/old-hooks') }] });
    expect(await endpointOf(apiKeyId)).toEqual(previous);
    expect(readdirSync(listenersDir(dataDir))).toEqual([]);
  });

  it('refuses outside local mode and changes nothing', { timeout: 120_000 }, async () => {
    const key = await cli(['keys', 'create', '--partner', 'listen-beta']);
    const apiKeyId = String(key.apiKeyId);
    await cli(['webhooks', 'set', '--key-id', apiKeyId, '--url', previous.url, '--events', previous.eventTypes.join(','), '--disabled']);
    const before = { endpoint: await endpointOf(apiKeyId), files: listing(listenDir(dataDir)) };
    for (const appEnv of ['beta', 'production']) {
      const failure = (await command(['webhooks', 'listen', '--key-id', apiKeyId], { APP_ENV: appEnv, DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/unused' }).then(
        () => null,
        (e: unknown) => e,
      )) as { code: number; stdout: string; stderr: string } | null;
      expect(failure?.code).toBe(1);
      expect(failure!.stdout).toBe('');
      expect(JSON.parse(failure!.stderr.trim())).toEqual({ code: 'INVALID_REQUEST', message: expect.stringContaining(`local mode (APP_ENV=local), not with APP_ENV=${appEnv}`) });
    }
    expect({ endpoint: await endpointOf(apiKeyId), files: listing(listenDir(dataDir)) }).toEqual(before);
  });
});

/** Every file under `dir` with its modification time. */
function listing(dir: string): Record<string, number> {
  const files: Record<string, number> = {};
  if (!existsSync(dir)) return files;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    const at = path.join(entry.parentPath, entry.name);
    files[path.relative(dir, at)] = statSync(at).mtimeMs;
  }
  return files;
}
