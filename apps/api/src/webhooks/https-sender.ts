import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { readFile, stat } from 'node:fs/promises';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import { bareHostname, isPublicAddress, type WebhookSender } from '@wallet/domain';

export interface HttpsSenderOptions {
  /**
   * Extra trusted CA certificates (PEM), added to Node's default roots (e.g. a private CA for a
   * test receiver, from WEBHOOK_CA_FILE). Certificate verification is never turned off.
   */
  extraCaPem?: string;
  /**
   * Local mode only: a CA file also trusted when present (the `webhooks listen` CA). Looked at
   * before each delivery and read again when its modification time or size changes, so a CA
   * created after start-up is trusted without a restart.
   */
  localCaFile?: string;
  /** false in production: loopback, private and link-local addresses are refused at connect time. */
  allowPrivateAddresses: boolean;
  /** Sockets kept per receiver (default 16). */
  maxSockets?: number;
}

/** At most this much of a response body is read (and discarded). */
const MAX_RESPONSE_BYTES = 64 * 1024;

/**
 * Resolves like dns.lookup, then refuses the connection when any address is not public: the check
 * happens on the addresses actually connected to, so a host that re-resolves to a private address
 * after configuration (DNS rebinding) is still refused.
 */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused || addresses.length === 0) {
      const err = Object.assign(new Error(`refused: ${hostname} resolves to a non-public address${refused ? ` (${refused.address})` : ''}`), {
        code: 'EADDRNOTPUBLIC',
      });
      return callback(err, '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/** The webhook sender over node:https: one keep-alive agent, a time-out per attempt, no redirects followed. */
export function createHttpsSender(options: HttpsSenderOptions): WebhookSender & { close(): void } {
  const createAgent = (extraCas: string[]) =>
    new https.Agent({
      keepAlive: true,
      maxSockets: options.maxSockets ?? 16,
      // One secure context for every connection: passing `ca` alone would parse all the roots again
      // for each new connection (tens of milliseconds each).
      ...(extraCas.length > 0 ? { secureContext: createSecureContext({ ca: [...rootCertificates, ...extraCas] }) } : {}),
    });
  const staticCas = options.extraCaPem ? [options.extraCaPem] : [];
  let current = { localCaStamp: 'absent', agent: createAgent(staticCas) };
  // Agents replaced after the local CA changed; their idle sockets close with the sender.
  const retired: https.Agent[] = [];

  const agentForNow = async (): Promise<https.Agent> => {
    const file = options.localCaFile;
    if (!file) return current.agent;
    const stamp = await stat(file).then(
      (s) => `${s.mtimeMs}:${s.size}`,
      () => 'absent',
    );
    if (stamp === current.localCaStamp) return current.agent;
    const pem = stamp === 'absent' ? null : await readFile(file, 'utf8').catch(() => null);
    let agent: https.Agent;
    try {
      agent = createAgent(pem ? [...staticCas, pem] : staticCas);
    } catch {
      agent = createAgent(staticCas); // not a readable PEM certificate: trust nothing from it
    }
    retired.push(current.agent);
    current = { localCaStamp: stamp, agent };
    return current.agent;
  };

  const sender = async (request: Parameters<WebhookSender>[0]) => {
    const agent = await agentForNow();
    return new Promise<Awaited<ReturnType<WebhookSender>>>((resolve) => {
      const started = performance.now();
      let settled = false;
      let timer: NodeJS.Timeout | undefined;
      const finish = (statusCode: number | null, error: string | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve({ statusCode, latencyMs: performance.now() - started, error });
      };
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return finish(null, 'invalid URL');
      }
      if (url.protocol !== 'https:') return finish(null, 'refused: not an HTTPS URL');
      const host = bareHostname(url);
      if (!options.allowPrivateAddresses && isIP(host) && !isPublicAddress(host)) {
        return finish(null, `refused: ${host} is not a public address`);
      }
      const body = Buffer.from(request.body, 'utf8');
      const req = https.request(url, {
        method: 'POST',
        agent,
        headers: { ...request.headers, 'content-length': String(body.length) },
        ...(options.allowPrivateAddresses ? {} : { lookup: publicOnlyLookup }),
      });
      timer = setTimeout(() => {
        finish(null, `timeout after ${request.timeoutMs} ms`);
        req.destroy(new Error('timeout'));
      }, request.timeoutMs);
      req.on('response', (res) => {
        // The attempt is decided by the status; the body is drained (bounded) so the socket can be reused.
        finish(res.statusCode ?? null, res.statusCode && res.statusCode >= 200 && res.statusCode < 300 ? null : `HTTP ${res.statusCode}`);
        let received = 0;
        const drainTimer = setTimeout(() => res.destroy(), request.timeoutMs);
        res.on('data', (chunk: Buffer) => {
          received += chunk.length;
          if (received > MAX_RESPONSE_BYTES) res.destroy();
        });
        res.on('close', () => clearTimeout(drainTimer));
        res.on('error', () => undefined);
      });
      req.on('error', (error: NodeJS.ErrnoException) => finish(null, describe(error)));
      req.end(body);
    });
  };

  return Object.assign(sender, {
    close: () => {
      for (const agent of [...retired, current.agent]) agent.destroy();
    },
  });
}

function describe(error: NodeJS.ErrnoException): string {
  const code = error.code ? `${error.code}: ` : '';
  const message = error.message ?? String(error);
  return (message.startsWith(error.code ?? '\0') ? message : `${code}${message}`).slice(0, 500);
}
