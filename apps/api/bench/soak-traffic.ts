/**
 * The soak's partner: N native transfers at R per second (open loop: transfer i is due at
 * i / R s whatever the answers' latency), each to its own recipient with its own value and its own
 * Idempotency-Key; every `duplicateEvery`-th one is sent a second time, the same request with the
 * same key, a random 0–3 s later. Each send goes to one living process at random and is retried on
 * the other one until a final answer (see `isFinal`) or its deadline; every attempt is recorded.
 */

export interface SoakWallet {
  id: string;
  address: string;
}

export interface Attempt {
  slot: string;
  ms: number;
  status?: number;
  /** The error code of a non-final answer, or why no answer came (ECONNREFUSED, ECONNRESET, timeout, …). */
  error?: string;
}

export interface FinalAnswer {
  status: number;
  transactionId?: string;
  txHash?: string;
  code?: string;
}

export interface SendLog {
  duplicate: boolean;
  attempts: Attempt[];
  final: FinalAnswer | null;
}

export interface PlannedTransfer {
  index: number;
  walletId: string;
  from: string;
  /** Lower-case: the recipient and value pair identifies the payment on chain. */
  to: string;
  value: bigint;
  key: string;
  sends: SendLog[];
}

export interface TrafficOptions {
  transfers: number;
  ratePerSecond: number;
  /** Every n-th transfer is sent twice (0: never). */
  duplicateEvery: number;
  chainId: number;
  wallets: SoakWallet[];
  apiKey: string;
  runId: string;
  /** The processes that listen now. */
  living: () => { name: string; url: string }[];
  requestDeadlineMs: number;
  /** True once the soak is interrupted: sends stop retrying. */
  interrupted: () => boolean;
}

/**
 * What the traffic is doing, for the progress line and for aiming kills: counters, the requests in
 * flight to each process, and the latency of recent answered requests.
 */
export function createTrafficWatch() {
  const inFlight = new Map<string, number>();
  const recentMs: number[] = [];
  let waiters: { slot: string; wake: () => void }[] = [];
  return {
    issued: 0,
    settled: 0,
    attempts: 0,
    /** Sends that got their final answer. */
    answered: 0,
    inFlight: (slot: string) => inFlight.get(slot) ?? 0,
    attemptStarted(slot: string) {
      inFlight.set(slot, (inFlight.get(slot) ?? 0) + 1);
      for (const w of waiters) if (w.slot === slot) w.wake();
      waiters = waiters.filter((w) => w.slot !== slot);
    },
    attemptEnded(slot: string, ms: number, answered: boolean) {
      inFlight.set(slot, (inFlight.get(slot) ?? 1) - 1);
      if (!answered) return;
      recentMs.push(ms);
      if (recentMs.length > 100) recentMs.shift();
    },
    /** The median latency of the last 100 answered requests (50 ms before any). */
    medianMs(): number {
      if (recentMs.length === 0) return 50;
      return [...recentMs].sort((a, b) => a - b)[Math.floor(recentMs.length / 2)]!;
    },
    /** Resolves true when the next request to `slot` starts, false after `timeoutMs`. */
    nextAttemptTo(slot: string, timeoutMs: number): Promise<boolean> {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs);
        const waiter = { slot, wake: () => (clearTimeout(timer), resolve(true)) };
        waiters.push(waiter);
      });
    },
  };
}

export type TrafficWatch = ReturnType<typeof createTrafficWatch>;

const ATTEMPT_TIMEOUT_MS = 30_000;
const DUPLICATE_DELAY_MS = 3_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The transfer's own recipient (0x50a0…index) and value (10^12 + index wei). */
export function planTransfer(index: number, wallet: SoakWallet, runId: string): PlannedTransfer {
  return {
    index,
    walletId: wallet.id,
    from: wallet.address.toLowerCase(),
    to: `0x50a0${index.toString(16).padStart(36, '0')}`,
    value: 10n ** 12n + BigInt(index),
    key: `soak-${runId}-${index}`,
    sends: [],
  };
}

/**
 * Final: 2xx; 4xx except 409 "still in progress" (the key's first run holds it) and 429; 5xx only
 * when it names a transactionId (a broadcast failure after the record exists: the service stores it
 * as the key's answer and replays it, so retrying cannot change it).
 */
export function isFinal(status: number, body: Record<string, unknown>): boolean {
  if (status >= 200 && status < 300) return true;
  if (status === 409) return !/still in progress/i.test(String(body.message ?? ''));
  if (status === 429) return false;
  if (status < 500) return true;
  return typeof body.transactionId === 'string';
}

function describe(error: unknown): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'timeout';
  return e.cause?.code ?? e.cause?.message ?? e.message;
}

export async function runTraffic(options: TrafficOptions, progress: TrafficWatch): Promise<PlannedTransfer[]> {
  const { wallets, living } = options;
  const planned: PlannedTransfer[] = [];
  const inFlight: Promise<void>[] = [];

  async function sendUntilFinal(transfer: PlannedTransfer, duplicate: boolean): Promise<void> {
    const log: SendLog = { duplicate, attempts: [], final: null };
    transfer.sends.push(log);
    const body = JSON.stringify({ to: transfer.to, value: transfer.value.toString(), chainId: options.chainId });
    const deadline = Date.now() + options.requestDeadlineMs;
    let previous: string | null = null;
    for (let n = 1; Date.now() < deadline && !options.interrupted(); n++) {
      const up = living();
      // A retry goes to the other process when it listens.
      const others = up.filter((s) => s.name !== previous);
      const candidates = others.length > 0 ? others : up;
      const target: { name: string; url: string } | undefined = candidates[Math.floor(Math.random() * candidates.length)];
      if (!target) {
        await sleep(250);
        continue;
      }
      const started = performance.now();
      const attempt: Attempt = { slot: target.name, ms: 0 };
      progress.attempts++;
      progress.attemptStarted(target.name);
      try {
        const response = await fetch(`${target.url}/v1/wallets/${transfer.walletId}/transfer`, {
          method: 'POST',
          headers: { 'x-api-key': options.apiKey, 'content-type': 'application/json', 'idempotency-key': transfer.key },
          body,
          signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        });
        const text = await response.text();
        let answer: Record<string, unknown> = {};
        try {
          answer = JSON.parse(text) as Record<string, unknown>;
        } catch {
          answer = { message: text.slice(0, 200) };
        }
        attempt.status = response.status;
        if (isFinal(response.status, answer)) {
          attempt.ms = Math.round(performance.now() - started);
          progress.attemptEnded(target.name, attempt.ms, true);
          log.attempts.push(attempt);
          log.final = {
            status: response.status,
            ...(typeof answer.transactionId === 'string' ? { transactionId: answer.transactionId } : {}),
            ...(typeof answer.txHash === 'string' ? { txHash: answer.txHash.toLowerCase() } : {}),
            ...(typeof answer.code === 'string' ? { code: answer.code } : {}),
          };
          progress.answered++;
          return;
        }
        attempt.error = response.status === 409 ? 'still in progress' : String(answer.code ?? answer.message ?? response.statusText);
      } catch (error) {
        attempt.error = describe(error);
      }
      attempt.ms = Math.round(performance.now() - started);
      progress.attemptEnded(target.name, attempt.ms, false);
      log.attempts.push(attempt);
      previous = target.name;
      await sleep(Math.min(2_000, 100 * 2 ** (n - 1)) * (0.5 + Math.random()));
    }
  }

  const track = (work: Promise<void>) => {
    inFlight.push(work.finally(() => progress.settled++));
  };
  const started = Date.now();
  for (let index = 0; index < options.transfers && !options.interrupted(); index++) {
    const due = started + (index * 1000) / options.ratePerSecond;
    if (due > Date.now()) await sleep(due - Date.now());
    const transfer = planTransfer(index, wallets[Math.floor(Math.random() * wallets.length)]!, options.runId);
    planned.push(transfer);
    progress.issued++;
    track(sendUntilFinal(transfer, false));
    if (options.duplicateEvery > 0 && index % options.duplicateEvery === options.duplicateEvery - 1) {
      progress.issued++;
      track(sleep(Math.random() * DUPLICATE_DELAY_MS).then(() => sendUntilFinal(transfer, true)));
    }
  }
  await Promise.all(inFlight);
  return planned;
}
