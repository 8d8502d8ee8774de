import type { RequestLogEntry, RequestLogStore } from '@wallet/domain';
import type { Logger } from '../logger.ts';

export interface RequestLogWriterOptions {
  store: Pick<RequestLogStore, 'append'>;
  logger: Pick<Logger, 'warn'>;
  /** How long an entry waits for its batch (default 250 ms). */
  flushMs?: number;
  /** Entries per INSERT; a full batch is written at once (default 500). */
  batchSize?: number;
  /** Entries held at most; beyond it new entries are dropped and counted (default 10000). */
  maxBuffered?: number;
}

export type RequestLogDropReason = 'buffer_full' | 'write_failed' | 'stopped';

/**
 * The request log's writer: requests hand their entry to `record` (no I/O, never throws) and an
 * in-process buffer is written off the request path, one multi-row INSERT per batch, every
 * `flushMs` or as soon as a batch is full, one INSERT at a time. Bounded: while the database is
 * slow or down the buffer stops at `maxBuffered` and further entries are dropped; a batch whose
 * INSERT fails is dropped too (no retry, so a bad batch cannot block the log). Both are counted
 * in `dropped` (exported in /metrics). `stop()` writes what is buffered (graceful shutdown); a
 * crash loses the buffer: at most `flushMs` of entries plus the batch being written.
 */
export function createRequestLogWriter({ store, logger, flushMs = 250, batchSize = 500, maxBuffered = 10_000 }: RequestLogWriterOptions) {
  let buffer: RequestLogEntry[] = [];
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> | undefined;
  let stopped = false;
  const dropped: Record<RequestLogDropReason, number> = { buffer_full: 0, write_failed: 0, stopped: 0 };
  let written = 0;
  let lastWarning = 0;

  function drop(reason: RequestLogDropReason, count: number, error?: unknown) {
    dropped[reason] += count;
    // One warning per 10 s at most: an outage must not flood the log.
    const now = Date.now();
    if (now - lastWarning >= 10_000) {
      lastWarning = now;
      logger.warn({ reason, dropped: count, error: error instanceof Error ? error.message.slice(0, 300) : undefined }, 'request log entries dropped');
    }
  }

  function schedule() {
    if (timer || writing || buffer.length === 0) return;
    if (buffer.length >= batchSize) return write();
    timer = setTimeout(() => {
      timer = undefined;
      write();
    }, flushMs);
    timer.unref();
  }

  /** Starts one INSERT of the next batch; the next one is scheduled when it ends. */
  function write() {
    if (writing || buffer.length === 0) return;
    const batch = buffer.length <= batchSize ? buffer : buffer.slice(0, batchSize);
    buffer = buffer.length <= batchSize ? [] : buffer.slice(batchSize);
    writing = store
      .append(batch)
      .then(
        () => void (written += batch.length),
        (error: unknown) => drop('write_failed', batch.length, error),
      )
      .finally(() => {
        writing = undefined;
        if (!stopped) schedule();
      });
  }

  return {
    record(entry: RequestLogEntry): void {
      if (stopped) return drop('stopped', 1);
      if (buffer.length >= maxBuffered) return drop('buffer_full', 1);
      buffer.push(entry);
      if (buffer.length >= batchSize && timer) {
        clearTimeout(timer);
        timer = undefined;
      }
      schedule();
    },
    /** Writes everything buffered now (tests, shutdown). */
    async flush(): Promise<void> {
      for (;;) {
        clearTimeout(timer);
        timer = undefined;
        if (writing) {
          await writing;
          continue;
        }
        if (buffer.length === 0) return;
        write();
      }
    },
    /** Flushes, then drops (and counts) whatever arrives later. */
    async stop(): Promise<void> {
      stopped = true;
      await this.flush();
    },
    stats() {
      return { written, dropped: { ...dropped }, buffered: buffer.length };
    },
  };
}

export type RequestLogWriter = ReturnType<typeof createRequestLogWriter>;
