/** The signer's counters, rendered as Prometheus text on GET /metrics. Label values are bounded: methods are the registered handlers' names (others count as `_unknown`). */
export type RequestOutcome = 'ok' | 'refused' | 'error' | 'unknown_method' | 'bad_request';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface StoreStats {
  signaturesLogged: number;
  logFsyncBatches: number;
}

export interface SignerMetrics {
  /** method → outcome → count */
  requests: Record<string, Partial<Record<RequestOutcome, number>>>;
  /** reason → count of connections refused (TLS handshake failures, client names not allowed) */
  refusedConnections: Record<string, number>;
  signaturesLogged: number;
  logFsyncBatches: number;
}

interface Histogram {
  counts: number[];
  sum: number;
  count: number;
}

const label = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

export class MetricsRegistry {
  private readonly requests = new Map<string, Map<RequestOutcome, number>>();
  private readonly latency = new Map<string, Histogram>();
  private readonly refused = new Map<string, number>();

  constructor(private readonly storeStats?: () => StoreStats) {}

  recordRequest(method: string, outcome: RequestOutcome, seconds: number): void {
    const byOutcome = this.requests.get(method) ?? new Map<RequestOutcome, number>();
    byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1);
    this.requests.set(method, byOutcome);
    const histogram = this.latency.get(method) ?? { counts: BUCKETS.map(() => 0), sum: 0, count: 0 };
    BUCKETS.forEach((bound, i) => {
      if (seconds <= bound) histogram.counts[i]!++;
    });
    histogram.sum += seconds;
    histogram.count++;
    this.latency.set(method, histogram);
  }

  recordRefusedConnection(reason: string): void {
    this.refused.set(reason, (this.refused.get(reason) ?? 0) + 1);
  }

  snapshot(): SignerMetrics {
    const stats = this.storeStats?.() ?? { signaturesLogged: 0, logFsyncBatches: 0 };
    return {
      requests: Object.fromEntries([...this.requests].map(([method, outcomes]) => [method, Object.fromEntries(outcomes)])),
      refusedConnections: Object.fromEntries(this.refused),
      signaturesLogged: stats.signaturesLogged,
      logFsyncBatches: stats.logFsyncBatches,
    };
  }

  prometheus(): string {
    const snap = this.snapshot();
    const lines: string[] = [];
    lines.push('# HELP signer_requests_total RPC requests by method and outcome.', '# TYPE signer_requests_total counter');
    for (const [method, outcomes] of Object.entries(snap.requests)) {
      for (const [outcome, count] of Object.entries(outcomes)) lines.push(`signer_requests_total{method="${label(method)}",outcome="${outcome}"} ${count}`);
    }
    lines.push('# HELP signer_request_duration_seconds RPC latency by method.', '# TYPE signer_request_duration_seconds histogram');
    for (const [method, h] of this.latency) {
      const m = label(method);
      BUCKETS.forEach((bound, i) => lines.push(`signer_request_duration_seconds_bucket{method="${m}",le="${bound}"} ${h.counts[i]}`));
      lines.push(`signer_request_duration_seconds_bucket{method="${m}",le="+Inf"} ${h.count}`);
      lines.push(`signer_request_duration_seconds_sum{method="${m}"} ${h.sum}`, `signer_request_duration_seconds_count{method="${m}"} ${h.count}`);
    }
    lines.push('# HELP signer_refused_connections_total Connections refused: TLS handshake failures and client names not allowed.', '# TYPE signer_refused_connections_total counter');
    for (const [reason, count] of Object.entries(snap.refusedConnections)) lines.push(`signer_refused_connections_total{reason="${label(reason)}"} ${count}`);
    lines.push('# HELP signer_signatures_logged_total Entries appended to the signature log.', '# TYPE signer_signatures_logged_total counter', `signer_signatures_logged_total ${snap.signaturesLogged}`);
    lines.push('# HELP signer_log_fsync_batches_total Group commits (one write and one fdatasync each) of the signature log.', '# TYPE signer_log_fsync_batches_total counter', `signer_log_fsync_batches_total ${snap.logFsyncBatches}`);
    return `${lines.join('\n')}\n`;
  }
}

/** Logs at most `max` lines per `windowMs`; the next window starts with one line counting what was dropped. A flood of bad handshakes cannot fill the disk. */
export class RateLimitedLog {
  private windowStart = 0;
  private inWindow = 0;
  private suppressed = 0;

  constructor(
    private readonly log: (obj: object, msg: string) => void,
    private readonly max = 20,
    private readonly windowMs = 10_000,
    private readonly clock: () => number = Date.now,
  ) {}

  write(obj: object, msg: string): void {
    const now = this.clock();
    if (now - this.windowStart >= this.windowMs) {
      if (this.suppressed > 0) this.log({ suppressed: this.suppressed, windowMs: this.windowMs }, 'refused connections not logged (rate limit)');
      this.windowStart = now;
      this.inWindow = 0;
      this.suppressed = 0;
    }
    if (this.inWindow < this.max) {
      this.inWindow++;
      this.log(obj, msg);
    } else {
      this.suppressed++;
    }
  }
}
