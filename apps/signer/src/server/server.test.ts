import { mkdtempSync, rmSync, statSync } from 'node:fs';
import http2 from 'node:http2';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFrameReader, decodePayload, FRAME_HEADER_BYTES } from '../transport/frames.ts';
import { RPC_ALPN, RPC_ALPN_JSON } from '../transport/protocol.ts';
import { createSignerClient, SignerRefusedError, SignerUnavailableError, type SignerClientOptions } from '../client/client.ts';
import { issueCredentialSet } from '../config/credentials.ts';
import { createDemoHandlers, DEMO_SECRET_MESSAGE } from './demo-handlers.ts';
import { startSignerServer, type SignerServer } from './server.ts';

const set = issueCredentialSet({ clientNames: ['wallet-api', 'intruder'] });
const otherCa = issueCredentialSet();
const serverTls = { ca: set.ca, cert: set.server.cert, key: set.server.key };
const apiTls = { ca: set.ca, ...set.clients['wallet-api']! };

function memoryLogger() {
  const lines: Array<{ level: string; msg?: string } & Record<string, unknown>> = [];
  const at = (level: string) => (obj: object, msg?: string) => lines.push({ level, msg, ...obj });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

const dir = mkdtempSync(path.join(tmpdir(), 'signer-server-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

for (const transport of ['unix', 'tcp'] as const) {
  describe(`signer server over ${transport}`, () => {
    const logger = memoryLogger();
    let server: SignerServer;
    let url: string;
    const clients: Array<{ close(): Promise<void> }> = [];
    const client = (overrides: Partial<SignerClientOptions> = {}) => {
      const c = createSignerClient({ url, tls: apiTls, timeoutMs: 3000, ...overrides });
      clients.push(c);
      return c;
    };

    beforeAll(async () => {
      const listen = transport === 'unix' ? { socketPath: path.join(dir, 'sock', 'signer.sock') } : { host: '127.0.0.1', port: 0 };
      server = await startSignerServer({ listen, tls: serverTls, handlers: createDemoHandlers(), logger, maxBodyBytes: 4096, version: 'test' });
      url = transport === 'unix' ? `unix:${server.address}` : `https://${server.address}`;
    });
    afterAll(async () => {
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
    });

    it('answers a call with its result, the request id and the client name', async () => {
      const result = await client().call<{ params: unknown; requestId: string; client: string }>('echo', { a: 1 }, 'req-1');
      expect(result).toEqual({ params: { a: 1 }, requestId: 'req-1', client: 'wallet-api' });
    });

    if (transport === 'unix') {
      it('creates the socket 0600 in a 0700 directory', () => {
        expect(statSync(server.address).mode & 0o777).toBe(0o600);
        expect(statSync(path.dirname(server.address)).mode & 0o777).toBe(0o700);
      });
      it('refuses to start on a socket another signer listens on', async () => {
        await expect(startSignerServer({ listen: { socketPath: server.address }, tls: serverTls, handlers: {}, logger: memoryLogger() })).rejects.toThrow(/another process is listening/);
      });
    }

    it('answers a SignerError with its status and body, anything else with a fixed 500 that is logged without its message', async () => {
      const c = client();
      const refused = await c.call('fail', { code: 'NOPE', status: 409, message: 'no' }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(SignerRefusedError);
      expect(refused).toMatchObject({ code: 'NOPE', status: 409, message: 'no', details: { demo: true } });
      const crashed = await c.call('crash', {}).catch((e: unknown) => e);
      expect(crashed).toMatchObject({ code: 'SIGNER_INTERNAL', status: 500, message: 'internal signer error' });
      const logged = logger.lines.find((l) => l.msg === 'signer handler failed');
      expect(logged).toMatchObject({ errorName: 'TypeError', method: 'crash' });
      expect(JSON.stringify(logger.lines)).not.toContain(DEMO_SECRET_MESSAGE.slice(0, 20));
      expect(JSON.stringify(crashed)).not.toContain(DEMO_SECRET_MESSAGE.slice(0, 20));
    });

    it('answers 404 UNKNOWN_METHOD, 400 on bad JSON, 413 above the body limit', async () => {
      const c = client();
      await expect(c.call('nope', {})).rejects.toMatchObject({ code: 'UNKNOWN_METHOD', status: 404 });
      await expect(c.call('constructor', {})).rejects.toMatchObject({ code: 'UNKNOWN_METHOD', status: 404 });
      await expect(c.call('echo', { big: 'x'.repeat(5000) })).rejects.toMatchObject({ code: 'BODY_TOO_LARGE', status: 413 });
      expect(await rawFrames(url, apiTls, ['{not json', '[1]', '{"params": 1}'])).toEqual([
        { status: 400, error: expect.objectContaining({ code: 'BAD_REQUEST' }) },
        { status: 400, error: expect.objectContaining({ code: 'BAD_REQUEST' }) },
        { status: 400, error: expect.objectContaining({ code: 'BAD_REQUEST' }) },
      ]);
      // The client still works after all that.
      await expect(c.call('echo', 1)).resolves.toMatchObject({ params: 1 });
    });

    it('attaches byte strings for a client of this release (wallet-signer/2) and inlines them as base64 for an older one (/1)', async () => {
      const bytes = Uint8Array.from({ length: 300 }, (_, i) => i % 256);
      const echoed = await client().call<{ params: { b: Uint8Array } }>('echo', { b: bytes });
      expect(echoed.params.b).toBeInstanceOf(Uint8Array);
      expect(Buffer.from(echoed.params.b).equals(Buffer.from(bytes))).toBe(true);
      // An older client sends base64 inline and reads it back the same way; a newer one gets it attached.
      const request = JSON.stringify({ method: 'echo', params: { b: { $bytes: Buffer.from(bytes).toString('base64') } } });
      const [older] = await rawPayloads(url, apiTls, [request], { alpn: RPC_ALPN_JSON });
      expect(JSON.parse(older!.toString('utf8'))).toMatchObject({ status: 200, result: { params: { b: { $bytes: Buffer.from(bytes).toString('base64') } } } });
      const [newer] = await rawPayloads(url, apiTls, [request]);
      expect(newer![0]).toBe(0);
      expect(newer!.includes(Buffer.from(bytes))).toBe(true);
      expect(decodePayload(newer!)).toMatchObject({ status: 200, result: { params: { b: bytes } } });
    });

    it('answers in the order handlers finish, each by its id, and a frame split across writes', async () => {
      const c = client();
      const order: string[] = [];
      await Promise.all([c.call('sleep', { ms: 200 }).then(() => order.push('slow')), c.call('echo', 'fast').then(() => order.push('fast'))]);
      expect(order).toEqual(['fast', 'slow']);
      expect(await rawFrames(url, apiTls, ['{"method": "echo", "params": "split"}'], 3)).toEqual([{ status: 200, result: expect.objectContaining({ params: 'split' }) }]);
    });

    it('serves /health and /metrics over HTTP/2 on the same listener, and no RPC there', async () => {
      const c = client();
      const health = await c.health();
      expect(health).toMatchObject({ reachable: true, status: 'ok' });
      const raw = await rawRequest(url, apiTls, '/health');
      expect(JSON.parse(raw.body)).toMatchObject({ status: 'ok', version: 'test' });
      const metrics = await rawRequest(url, apiTls, '/metrics');
      expect(metrics.body).toMatch(/signer_requests_total\{method="echo",outcome="ok"\} \d+/);
      expect(metrics.body).toContain('signer_request_duration_seconds_bucket{method="echo",le="+Inf"}');
      expect(metrics.body).toContain('signer_signatures_logged_total 0');
      const rpcOverHttp = await rawRequest(url, apiTls, '/rpc/echo', '{"params": 1}');
      expect(rpcOverHttp.status).toBe(404);
    });

    it('refuses a connection that names no protocol (ALPN)', async () => {
      const before = server.metrics().refusedConnections.no_protocol ?? 0;
      const target = url.startsWith('unix:') ? { path: url.slice(5) } : { host: '127.0.0.1', port: Number(new URL(url).port) };
      await new Promise<void>((resolve) => {
        const socket = tls.connect({ ...target, ...apiTls, servername: 'wallet-signer' });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve());
      });
      expect(server.metrics().refusedConnections.no_protocol).toBe(before + 1);
    });

    it('refuses a client certificate from another CA at the handshake, and logs it', async () => {
      const before = server.metrics().refusedConnections.tls_handshake ?? 0;
      const error = await client({ tls: { ca: set.ca, ...otherCa.clients['wallet-api']! } })
        .call('echo', {})
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SignerUnavailableError);
      await waitFor(() => (server.metrics().refusedConnections.tls_handshake ?? 0) > before);
      expect(logger.lines.some((l) => l.msg?.includes('TLS handshake failed') && typeof l.peer === 'string' && typeof l.reason === 'string')).toBe(true);
    });

    it('refuses a client without a certificate', async () => {
      const before = server.metrics().refusedConnections.tls_handshake ?? 0;
      const error = await client({ tls: { ca: set.ca, cert: '', key: '' } })
        .call('echo', {})
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SignerUnavailableError);
      await waitFor(() => (server.metrics().refusedConnections.tls_handshake ?? 0) > before);
    });

    it('answers 403 to a certificate of the right CA with a name not allowed, and logs it', async () => {
      const error = await client({ tls: { ca: set.ca, ...set.clients.intruder! } })
        .call('echo', {})
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'SIGNER_CLIENT_NOT_ALLOWED', status: 403 });
      expect(logger.lines.some((l) => l.reason === 'CLIENT_NOT_ALLOWED' && l.clientName === 'intruder')).toBe(true);
    });

    it('refuses a signer whose certificate is from another CA or for another name', async () => {
      await expect(client({ tls: { ...apiTls, ca: otherCa.ca } }).call('echo', {})).rejects.toBeInstanceOf(SignerUnavailableError);
      await expect(client({ serverName: 'someone-else' }).call('echo', {})).rejects.toBeInstanceOf(SignerUnavailableError);
    });

    it('times out a call the signer does not answer', async () => {
      const started = Date.now();
      await expect(client({ timeoutMs: 300 }).call('sleep', { ms: 2000 })).rejects.toBeInstanceOf(SignerUnavailableError);
      expect(Date.now() - started).toBeLessThan(1500);
    });

    it('multiplexes concurrent calls on one session', async () => {
      const c = client();
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => c.call<{ params: number }>('echo', i)));
      expect(results.map((r) => r.params)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    });
  });
}

describe('signer client and a signer of an older release (wallet-signer/1 only)', () => {
  it('falls back to byte strings inline as base64, both ways', async () => {
    const seen: string[] = [];
    const older = tls.createServer({ ...serverTls, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.3', ALPNProtocols: [RPC_ALPN_JSON] }, (socket) => {
      socket.on(
        'data',
        createFrameReader(1 << 20, {
          frame(id, payload) {
            seen.push(payload.toString('utf8'));
            const request = JSON.parse(payload.toString('utf8')) as { params: unknown };
            const answer = Buffer.from(JSON.stringify({ status: 200, result: request.params }), 'utf8');
            const header = Buffer.alloc(FRAME_HEADER_BYTES);
            header.writeUInt32BE(answer.length, 0);
            header.writeUInt32BE(id, 4);
            socket.write(Buffer.concat([header, answer]));
          },
          oversize: () => socket.destroy(),
        }),
      );
    });
    await new Promise<void>((resolve) => older.listen(0, '127.0.0.1', resolve));
    const c = createSignerClient({ url: `https://127.0.0.1:${(older.address() as { port: number }).port}`, tls: apiTls, timeoutMs: 3000 });
    try {
      const bytes = Uint8Array.of(0, 1, 2, 250);
      // Calls made before the handshake said which protocol: held, then written in the agreed form.
      const [answer] = await Promise.all([c.call<{ b: Uint8Array }>('echo', { b: bytes }), c.call('echo', { n: 1 })]);
      expect(seen[0]).toBe(`{"method":"echo","requestId":${JSON.stringify(JSON.parse(seen[0]!).requestId)},"params":{"b":{"$bytes":"AAEC+g=="}}}`);
      expect(answer.b).toEqual(bytes);
    } finally {
      await c.close();
      older.close();
    }
  });
});

describe('signer client without a signer', () => {
  it('reports a missing socket as SignerUnavailableError and health as unreachable', async () => {
    const c = createSignerClient({ url: `unix:${path.join(dir, 'missing.sock')}`, tls: apiTls, timeoutMs: 2000 });
    await expect(c.call('echo', {})).rejects.toBeInstanceOf(SignerUnavailableError);
    await expect(c.health()).resolves.toEqual({ reachable: false });
    await c.close();
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function rawRequest(url: string, creds: { ca: string; cert: string; key: string }, path: string, body?: string): Promise<{ status: number; body: string }> {
  const target = url.startsWith('unix:') ? { path: url.slice(5) } : { host: '127.0.0.1', port: Number(new URL(url).port) };
  return new Promise((resolve, reject) => {
    const session = http2.connect('https://wallet-signer', {
      createConnection: () => tls.connect({ ...target, ...creds, servername: 'wallet-signer', ALPNProtocols: ['h2'] }),
    });
    session.on('error', reject);
    const stream = session.request({ ':method': body === undefined ? 'GET' : 'POST', ':path': path }, { endStream: body === undefined });
    let status = 0;
    const chunks: Buffer[] = [];
    stream.on('response', (h) => (status = Number(h[':status'])));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => {
      session.close();
      resolve({ status, body: Buffer.concat(chunks).toString() });
    });
    stream.on('error', reject);
    if (body !== undefined) stream.end(body);
  });
}

/** Raw frames over the RPC protocol, each written `splitInto` pieces a few milliseconds apart; their answers in order of id. */
async function rawFrames(url: string, creds: { ca: string; cert: string; key: string }, payloads: string[], splitInto = 1): Promise<unknown[]> {
  return (await rawPayloads(url, creds, payloads, { splitInto })).map(decodePayload);
}

/** The answers' raw payloads, in order of id, over the ALPN protocol `alpn` (default wallet-signer/2). */
function rawPayloads(url: string, creds: { ca: string; cert: string; key: string }, payloads: string[], { splitInto = 1, alpn = RPC_ALPN } = {}): Promise<Buffer[]> {
  const target = url.startsWith('unix:') ? { path: url.slice(5) } : { host: '127.0.0.1', port: Number(new URL(url).port) };
  return new Promise((resolve, reject) => {
    const answers = new Map<number, Buffer>();
    const socket = tls.connect({ ...target, ...creds, servername: 'wallet-signer', ALPNProtocols: [alpn] });
    socket.on('error', reject);
    socket.on(
      'data',
      createFrameReader(1 << 20, {
        frame(id, payload) {
          answers.set(id, Buffer.from(payload));
          if (answers.size === payloads.length) {
            socket.destroy();
            resolve([...answers.entries()].sort(([a], [b]) => a - b).map(([, answer]) => answer));
          }
        },
        oversize: () => reject(new Error('oversize answer')),
      }),
    );
    socket.once('secureConnect', async () => {
      for (const [i, payload] of payloads.entries()) {
        const frame = Buffer.concat([Buffer.alloc(FRAME_HEADER_BYTES), Buffer.from(payload, 'utf8')]);
        frame.writeUInt32BE(frame.length - FRAME_HEADER_BYTES, 0);
        frame.writeUInt32BE(i + 1, 4);
        const size = Math.ceil(frame.length / splitInto);
        for (let at = 0; at < frame.length; at += size) {
          socket.write(frame.subarray(at, at + size));
          await new Promise((r) => setTimeout(r, 5));
        }
      }
    });
  });
}
