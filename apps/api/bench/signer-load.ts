/**
 * Load loops over an async call (no HTTP) for the signer section (signer.ts), with the CPU time of
 * this process and of another one (the signer, from /proc) over exactly the measured window.
 */
import { execFileSync } from 'node:child_process';
import { closeSync, fdatasyncSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';

export interface CallLoadResult {
  /** Calls that answered (errors are counted apart and left out of the latencies). */
  ok: number;
  errors: Record<string, number>;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  /** The answered calls' latencies in ms, sorted. */
  latencies: number[];
  /** CPU milliseconds per answered call: this process (user + system) and the watched process. */
  cpuSelfMs: number;
  cpuOtherMs: number | null;
}

/** Clock ticks per second of /proc/<pid>/stat (getconf CLK_TCK; 100 on Linux in practice). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process in milliseconds, or null when /proc cannot be read (not Linux, process gone). */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at field 3 (state): utime is field 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

const selfCpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

function errorName(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown; message?: unknown };
  return String(e?.code ?? e?.name ?? 'error');
}

/** p50, p99 and max of sorted latencies. */
export function percentiles(sorted: number[]): { p50: number; p99: number; max: number } {
  const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { p50: pick(0.5), p99: pick(0.99), max: sorted.at(-1) ?? 0 };
}

async function measured(otherPid: number | undefined, run: (latencies: number[], errors: Record<string, number>) => Promise<void>): Promise<CallLoadResult> {
  const latencies: number[] = [];
  const errors: Record<string, number> = {};
  const self0 = selfCpuMs();
  const other0 = processCpuMs(otherPid);
  const started = performance.now();
  await run(latencies, errors);
  const seconds = (performance.now() - started) / 1000;
  const self1 = selfCpuMs();
  const other1 = processCpuMs(otherPid);
  latencies.sort((a, b) => a - b);
  const ok = latencies.length;
  return {
    ok,
    errors,
    seconds,
    perSecond: ok / seconds,
    ...percentiles(latencies),
    latencies,
    cpuSelfMs: ok > 0 ? (self1 - self0) / ok : 0,
    cpuOtherMs: other0 !== null && other1 !== null && ok > 0 ? (other1 - other0) / ok : null,
  };
}

/** Closed loop: `concurrency` callers, each calling again as soon as its last call answered, for `seconds`. */
export function closedLoopCalls(call: (i: number) => Promise<unknown>, seconds: number, concurrency: number, otherPid?: number): Promise<CallLoadResult> {
  return measured(otherPid, async (latencies, errors) => {
    const end = performance.now() + seconds * 1000;
    let issued = 0;
    async function worker() {
      while (performance.now() < end) {
        const t0 = performance.now();
        try {
          await call(issued++);
          latencies.push(performance.now() - t0);
        } catch (error) {
          const name = errorName(error);
          errors[name] = (errors[name] ?? 0) + 1;
        }
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker));
  });
}

/**
 * Open loop: calls start on a fixed schedule (`perSecond` for `seconds`) whether or not earlier ones
 * answered; latency counts from the scheduled start, so queueing and a late timer show in p99.
 */
export function openLoopCalls(call: (i: number) => Promise<unknown>, perSecond: number, seconds: number, otherPid?: number): Promise<CallLoadResult> {
  return measured(otherPid, async (latencies, errors) => {
    const total = Math.round(perSecond * seconds);
    const started = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / perSecond;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      // From the scheduled time, or the actual one when the timer let it leave up to 1 ms early.
      const scheduled = Math.min(due, performance.now());
      pending.push(
        call(i).then(
          () => void latencies.push(performance.now() - scheduled),
          (error: unknown) => {
            const name = errorName(error);
            errors[name] = (errors[name] ?? 0) + 1;
          },
        ),
      );
    }
    await Promise.all(pending);
  });
}

/** What the bench reads of the signer's GET /metrics: server-side time per method, signatures logged, log group commits. */
export interface SignerCounters {
  handler: Record<string, { sum: number; count: number }>;
  logged: number;
  fsyncBatches: number;
}

export function parseSignerMetrics(text: string): SignerCounters {
  const handler: SignerCounters['handler'] = {};
  let logged = 0;
  let fsyncBatches = 0;
  for (const line of text.split('\n')) {
    const m = /^signer_request_duration_seconds_(sum|count)\{method="([^"]+)"\} (\S+)$/.exec(line);
    if (m) {
      const entry = (handler[m[2]!] ??= { sum: 0, count: 0 });
      entry[m[1] as 'sum' | 'count'] = Number(m[3]);
    } else if (line.startsWith('signer_signatures_logged_total ')) logged = Number(line.split(' ')[1]);
    else if (line.startsWith('signer_log_fsync_batches_total ')) fsyncBatches = Number(line.split(' ')[1]);
  }
  return { handler, logged, fsyncBatches };
}

/**
 * p50 / p99 / max of one line + fdatasync in `dir`, `count` times: appended to a growing file
 * (`extends`), or written over padding written ahead as the signer's journals do (`overwrites`), the
 * two alternating so that both see the same disk.
 */
export function fsyncProbe(dir: string, count: number): Record<'extends' | 'overwrites', { p50: number; p99: number; max: number }> {
  const line = Buffer.from(`${'x'.repeat(255)}\n`);
  const grown = path.join(dir, 'fsync-probe-extends');
  const padded = path.join(dir, 'fsync-probe-overwrites');
  const grownFd = openSync(grown, 'a', 0o600);
  const paddedFd = openSync(padded, 'w', 0o600);
  const latencies = { extends: [] as number[], overwrites: [] as number[] };
  try {
    writeSync(paddedFd, Buffer.alloc(line.length * (count + 1), 0x20), 0, line.length * (count + 1), 0);
    fdatasyncSync(paddedFd);
    for (let i = 0; i < count; i++) {
      let t0 = performance.now();
      writeSync(grownFd, line);
      fdatasyncSync(grownFd);
      latencies.extends.push(performance.now() - t0);
      t0 = performance.now();
      writeSync(paddedFd, line, 0, line.length, i * line.length);
      fdatasyncSync(paddedFd);
      latencies.overwrites.push(performance.now() - t0);
    }
  } finally {
    closeSync(grownFd);
    closeSync(paddedFd);
    rmSync(grown, { force: true });
    rmSync(padded, { force: true });
  }
  return { extends: percentiles(latencies.extends.sort((a, b) => a - b)), overwrites: percentiles(latencies.overwrites.sort((a, b) => a - b)) };
}
