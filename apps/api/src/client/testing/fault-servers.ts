/**
 * Real loopback servers that stand between @wallet/client and the service to make it retry:
 * a TCP proxy that can drop a connection after the service answered (the answer never reaches the
 * client), and an HTTP front that answers scripted statuses before forwarding to the service.
 */
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

/** What went through one proxied connection. */
export interface ProxiedConnection {
  /** Bytes the client sent (request line, headers, body). */
  request: Buffer;
  /** Bytes the service answered, relayed or not. */
  response: Buffer;
  dropped: boolean;
}

export interface DroppingProxy {
  url: string;
  connections: ProxiedConnection[];
  /** Connections (by index, from 0) whose answer is withheld: the client side is destroyed when the service's first bytes arrive. */
  dropAnswerOf: Set<number>;
  close(): Promise<void>;
}

export async function startDroppingProxy(target: string): Promise<DroppingProxy> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<Socket>();
  const proxy: DroppingProxy = { url: '', connections: [], dropAnswerOf: new Set(), close: async () => undefined };
  const server = net.createServer((client) => {
    const index = proxy.connections.length;
    const connection: ProxiedConnection = { request: Buffer.alloc(0), response: Buffer.alloc(0), dropped: false };
    proxy.connections.push(connection);
    const upstream = net.connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('data', (chunk: Buffer) => {
      connection.request = Buffer.concat([connection.request, chunk]);
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      connection.response = Buffer.concat([connection.response, chunk]);
      if (proxy.dropAnswerOf.has(index)) {
        connection.dropped = true;
        client.destroy();
        // Read the rest of the answer (for the test to compare), then let the connection go.
        upstream.once('end', () => upstream.destroy());
        setTimeout(() => upstream.destroy(), 500).unref();
        return;
      }
      client.write(chunk);
    });
    client.on('close', () => {
      if (!connection.dropped) upstream.destroy();
    });
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.close = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return proxy;
}

/** Status, headers and JSON body of an HTTP/1.1 answer held as bytes (Content-Length framed, as the service answers). */
export function parseHttpAnswer(bytes: Buffer): { status: number; headers: Record<string, string>; body: unknown } {
  const text = bytes.toString('utf8');
  const end = text.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const length = Number(headers['content-length']);
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(text.slice(end + 4, end + 4 + length)) };
}

/** The value of header `name` in raw request bytes. */
export function requestHeader(bytes: Buffer, name: string): string | undefined {
  const head = bytes.toString('utf8').split('\r\n\r\n')[0]!;
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(name.length + 1).trim();
}

export interface SeenRequest {
  at: number;
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** One scripted answer: a status with headers and a JSON body. */
export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface ScriptedFront {
  url: string;
  requests: SeenRequest[];
  /** Answers given in order, one per request; once empty, requests are forwarded to the service. */
  script: ScriptedAnswer[];
  close(): Promise<void>;
}

/** An HTTP server that answers its script first and then forwards to `target` (the real service). */
export async function startScriptedFront(target: string): Promise<ScriptedFront> {
  const front: ScriptedFront = { url: '', requests: [], script: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      front.requests.push({ at: Date.now(), method: req.method!, path: req.url!, headers: req.headers, body });
      const scripted = front.script.shift();
      if (scripted) {
        res.writeHead(scripted.status, { 'content-type': 'application/json', ...scripted.headers });
        res.end(JSON.stringify(scripted.body ?? { code: 'SCRIPTED', message: `scripted ${scripted.status}` }));
        return;
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length'].includes(name)).map(([k, v]) => [k, String(v)]));
      fetch(`${target}${req.url}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : body })
        .then(async (answer) => {
          res.writeHead(answer.status, Object.fromEntries([...answer.headers].filter(([name]) => !['content-length', 'transfer-encoding', 'connection', 'keep-alive'].includes(name))));
          res.end(Buffer.from(await answer.arrayBuffer()));
        })
        .catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  front.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  front.close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return front;
}
