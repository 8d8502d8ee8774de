import { isIP } from 'node:net';
import { ApiError } from '@wallet/domain/errors.ts';
import { WEBHOOK_EVENT_TYPES } from '@wallet/domain/webhooks/event-types.ts';
import type { WebhookConfigView } from '@wallet/domain/webhooks/service.ts';
import { loadConfig } from '../config.ts';
import { execute } from '../cli/run.ts';
import { ensureLocalCa, issueLoopbackCertificate } from './certificates.ts';
import {
  isRunning,
  listListenerRecords,
  readListenerRecord,
  removeListenerRecord,
  writeListenerRecord,
  type ListenerRecord,
} from './listener-record.ts';
import { startListener, type ListenLine } from './listener.ts';

export interface ListenArgs {
  apiKeyId: string | undefined;
  forwardTo: string | undefined;
  port: string | undefined;
  restore: boolean;
}

export interface ListenIo {
  /** One JSON line per delivery; nothing else goes there. */
  printLine: (line: ListenLine) => void;
  /** Status messages for the developer (stderr). */
  status: (message: string) => void;
}

const invalid = (message: string) => new ApiError(400, 'INVALID_REQUEST', message);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Local mode only, checked before anything is read or written: the listener's certificate comes
 * from a CA that only a local-mode service trusts, and its endpoint is plain loopback.
 */
export function requireLocalMode(env: NodeJS.ProcessEnv = process.env): void {
  const appEnv = env.APP_ENV || 'local';
  if (appEnv !== 'local') {
    throw invalid(
      `webhooks listen runs only in local mode (APP_ENV=local), not with APP_ENV=${appEnv}: beta and production deliver only to ` +
        'HTTPS endpoints whose certificate they can verify, and never trust the local listener CA',
    );
  }
}

/** `--forward-to`: an http(s) URL; plain HTTP only to a loopback host (the developer's own app). */
export function parseForwardTo(text: string | undefined): URL | null {
  if (text === undefined) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalid('--forward-to: not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('--forward-to: must be an http:// or https:// URL');
  if (url.username || url.password) throw invalid('--forward-to: must not hold credentials');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const loopback = host === 'localhost' || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
  if (url.protocol === 'http:' && !loopback) throw invalid('--forward-to: plain http:// is allowed only to a loopback host (127.0.0.1, localhost, ::1)');
  return url;
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return 0;
  if (!/^\d+$/.test(text) || Number(text) > 65535) throw invalid('--port: must be a TCP port number (0 for any free port)');
  return Number(text);
}

function parseKeyId(text: string | undefined): string {
  if (!text) throw invalid('--key-id is required');
  // Checked here too: the key id names the listener's record file in the data directory.
  if (!UUID.test(text)) throw new ApiError(404, 'NOT_FOUND', 'API key not found');
  return text.toLowerCase();
}

async function showEndpoint(apiKeyId: string): Promise<WebhookConfigView | null> {
  try {
    return (await execute('webhooks.show', { apiKeyId })) as WebhookConfigView;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/**
 * Puts back the endpoint a listener replaced: the previous URL, event types and enabled flag, or,
 * when the listener had created the endpoint, disables it (there is no delete; its secret stays for
 * the next listener). An endpoint changed meanwhile (it no longer points at that listener) is left alone.
 */
async function restore(record: ListenerRecord): Promise<string> {
  const current = await showEndpoint(record.apiKeyId);
  if (!current) return 'the API key has no webhook endpoint any more; nothing to restore';
  if (current.url !== record.url) return `the endpoint no longer points at the listener (now ${current.url}); left as it is`;
  if (record.previous) {
    await execute('webhooks.set', { apiKeyId: record.apiKeyId, ...record.previous });
    return `restored the endpoint to ${record.previous.url} (${record.previous.enabled ? 'enabled' : 'disabled'}, events ${record.previous.eventTypes.join(',') || 'none'})`;
  }
  await execute('webhooks.disable', { apiKeyId: record.apiKeyId });
  return 'disabled the endpoint the listener had created (it keeps its secret for the next listen)';
}

async function restoreLeftOver(dataDir: string, record: ListenerRecord): Promise<string> {
  if (isRunning(record.pid)) {
    throw new ApiError(
      409,
      'CONFLICT',
      `a listener (pid ${record.pid}) is running for API key ${record.apiKeyId}; stop it first (if that pid is not a listener, delete ` +
        `the record in ${dataDir}/webhook-listen/listeners/)`,
    );
  }
  const outcome = await restore(record);
  removeListenerRecord(dataDir, record.apiKeyId);
  return outcome;
}

/** `listen --restore [--key-id ID]`: restores what listeners that did not stop cleanly left behind. */
export async function restoreCommand(args: ListenArgs): Promise<unknown> {
  requireLocalMode();
  const { dataDir } = loadConfig();
  const records = args.apiKeyId ? [readListenerRecord(dataDir, parseKeyId(args.apiKeyId))].filter((r) => r !== null) : listListenerRecords(dataDir);
  const restored = [];
  for (const record of records) restored.push({ apiKeyId: record.apiKeyId, listenerPid: record.pid, outcome: await restoreLeftOver(dataDir, record) });
  return { restored };
}

/**
 * `listen`: serves HTTPS on 127.0.0.1, points the key's endpoint at it until SIGINT or SIGTERM, then
 * restores the endpoint. Resolves with the process exit code.
 */
export async function listenCommand(args: ListenArgs, io: ListenIo): Promise<number> {
  requireLocalMode();
  const config = loadConfig();
  const apiKeyId = parseKeyId(args.apiKeyId);
  const forwardTo = parseForwardTo(args.forwardTo);
  const port = parsePort(args.port);
  const { dataDir } = config;

  // From here a signal stops the listener through the restore below; a second one exits at once
  // (the record then stays for the next run).
  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve(signal));
  });

  const leftOver = readListenerRecord(dataDir, apiKeyId);
  if (leftOver) io.status(`a previous listener (pid ${leftOver.pid}) did not stop cleanly: ${await restoreLeftOver(dataDir, leftOver)}`);

  const tls = await issueLoopbackCertificate(await ensureLocalCa(dataDir));
  const listener = await startListener({
    tls,
    port,
    forwardTo,
    forwardTimeoutMs: config.webhooks.timeoutMs,
    print: io.printLine,
    warn: io.status,
  });
  let record: ListenerRecord | null = null;
  try {
    const previous = await showEndpoint(apiKeyId);
    record = {
      pid: process.pid,
      apiKeyId,
      url: listener.url,
      previous: previous ? { url: previous.url, eventTypes: previous.eventTypes, enabled: previous.enabled } : null,
      startedAt: new Date().toISOString(),
    };
    writeListenerRecord(dataDir, record);
    const eventTypes = previous && previous.eventTypes.length > 0 ? previous.eventTypes : [...WEBHOOK_EVENT_TYPES];
    const endpoint = (await execute('webhooks.set', { apiKeyId, url: listener.url, eventTypes, enabled: true })) as WebhookConfigView;
    if (endpoint.secret) {
      io.status(`the API key had no webhook endpoint: created one; its signing secret, shown only now (as \`set\` does at creation): ${endpoint.secret}`);
    } else {
      io.status('deliveries are signed with the endpoint\'s existing secret (shown when it was created; `webhooks -- rotate` makes a new one)');
    }
    io.status(
      `ready: ${listener.url} receives the events of API key ${apiKeyId} (${eventTypes.join(',')})` +
        `${forwardTo ? `, forwarded to ${forwardTo.toString()}` : ''}; Ctrl-C stops and restores the endpoint`,
    );
  } catch (error) {
    await listener.close();
    if (record) {
      try {
        io.status(`setting up failed: ${await restore(record)}`);
        removeListenerRecord(dataDir, apiKeyId);
      } catch (restoreError) {
        io.status(`could not restore the endpoint (${(restoreError as Error).message}); the next listen, or \`webhooks -- listen --restore\`, will`);
      }
    }
    throw error;
  }

  const signal = await stopSignal;
  io.status(`${signal}: stopping`);
  await listener.close();
  try {
    io.status(await restore(record));
    removeListenerRecord(dataDir, apiKeyId);
    return 0;
  } catch (error) {
    io.status(`could not restore the endpoint (${(error as Error).message}); the next listen, or \`webhooks -- listen --restore\`, will`);
    return 1;
  }
}
