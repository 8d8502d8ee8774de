import http from 'node:http';

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  statuses: Record<number, number>;
}

export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Closed-loop load: `concurrency` workers each send the next request as soon as the last answered. */
export async function closedLoop(
  baseUrl: string,
  total: number,
  concurrency: number,
  next: (i: number) => LoadRequest,
): Promise<LoadResult> {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let issued = 0;
  const started = process.hrtime.bigint();
  async function worker() {
    while (issued < total) {
      const request = next(issued++);
      const t0 = process.hrtime.bigint();
      const status = await send(agent, url, request);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: total, seconds, perSecond: total / seconds, p50: pick(0.5), p99: pick(0.99), statuses };
}

function send(agent: http.Agent, url: URL, request: LoadRequest): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: url.hostname,
        port: url.port,
        method: request.method,
        path: request.path,
        headers: { ...request.headers, ...(request.body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(request.body) } : {}) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(request.body);
  });
}

/**
 * Open-loop load: requests leave on a fixed schedule (`perSecond`), whether or not earlier ones
 * were answered, so a slow server shows up as latency instead of a lower send rate.
 */
export async function openLoop(
  baseUrl: string,
  perSecond: number,
  seconds: number,
  next: (i: number) => LoadRequest,
): Promise<LoadResult> {
  const url = new URL(baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const total = Math.round(perSecond * seconds);
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const started = process.hrtime.bigint();
  const pending: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = Number(started) + (i * 1e9) / perSecond;
    const wait = (due - Number(process.hrtime.bigint())) / 1e6;
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    const scheduled = due;
    pending.push(
      send(agent, url, next(i)).then((status) => {
        // Latency counts from the scheduled send time, so client-side lateness is not hidden.
        latencies.push((Number(process.hrtime.bigint()) - scheduled) / 1e6);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }),
    );
  }
  await Promise.all(pending);
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: total, seconds: elapsed, perSecond: total / elapsed, p50: pick(0.5), p99: pick(0.99), statuses };
}
