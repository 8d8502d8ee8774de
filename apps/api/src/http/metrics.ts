import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method and route',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });
  const strandedWallets = new Gauge({
    name: 'wallet_stranded_wallets',
    help: 'EVM wallets found stranded by the last nonce-gap run of this process: a nonce below their waiting transactions that nothing holds',
    registers: [registry],
  });
  const gapFills = new Counter({
    name: 'wallet_nonce_gap_fills_total',
    help: 'Gap fillers (zero-value self-transfers) this process signed and recorded for stranded wallets',
    registers: [registry],
  });
  const gapFillErrors = new Counter({
    name: 'wallet_nonce_gap_fill_errors_total',
    help: 'Stranded wallets this process failed to fill in a run (see the log)',
    registers: [registry],
  });
  const requestLogSources: Array<() => { written: number; dropped: Record<string, number> }> = [];
  new Counter({
    name: 'request_log_dropped_total',
    help: 'Request log entries dropped by this process: buffer_full (the database could not keep up or was down), write_failed (their batch INSERT failed), stopped (after shutdown began)',
    labelNames: ['reason'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const source of requestLogSources) for (const [reason, count] of Object.entries(source().dropped)) this.inc({ reason }, count);
    },
  });
  new Counter({
    name: 'request_log_written_total',
    help: 'Request log entries this process wrote',
    registers: [registry],
    collect() {
      this.reset();
      for (const source of requestLogSources) this.inc(source().written);
    },
  });
  // Label children resolved once per (method, route, status) rather than hashed on every request.
  const children = new Map<string, { requests: { inc(): void }; duration: { observe(value: number): void } }>();
  return {
    registry,
    /** A nonce-gap run's outcome. */
    nonceGapRun(result: { stranded: number; filled: number; errors: number }) {
      strandedWallets.set(result.stranded);
      gapFills.inc(result.filled);
      gapFillErrors.inc(result.errors);
    },
    /** Exports the request-log writer's counts (read at each scrape). */
    watchRequestLog(writer: { stats(): { written: number; dropped: Record<string, number> } }) {
      requestLogSources.push(() => writer.stats());
    },
    observe(method: string, route: string, status: number, seconds: number) {
      const key = `${method} ${status} ${route}`;
      let child = children.get(key);
      if (!child) {
        child = { requests: requests.labels(method, route, String(status)), duration: duration.labels(method, route) };
        children.set(key, child);
      }
      child.requests.inc();
      child.duration.observe(seconds);
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
