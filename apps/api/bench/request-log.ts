/**
 * The request log's cost on the signing path: EVM sign-message (a POST, so every request is
 * logged) against two services started alike, one with REQUEST_LOG=on and one with
 * REQUEST_LOG=off, measured side by side in the same run, in interleaved rounds so drift of the
 * shared machine hits both columns alike. BENCH_ONLY=request-log runs this section alone.
 */
import { closedLoop, openLoop, type LoadResult } from './load.ts';

export interface RequestLogBenchOptions {
  /** The services: `on` logs (REQUEST_LOG=on), `off` does not; each with its own API key. */
  services: { on: { url: string; apiKey: string }; off: { url: string; apiKey: string } };
  signs: number;
  concurrency: number;
  openLoopRate: number;
  openLoopSeconds: number;
  rounds?: number;
  row(name: string, result: LoadResult): string;
}

const message = JSON.stringify({ message: 'benchmark message: sign me' });

async function signer(url: string, apiKey: string) {
  const headers = { 'x-api-key': apiKey };
  const wallet = (await fetch(`${url}/v1/wallets`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'EVM', userIdentifier: 'bench-request-log', userIdentifierType: 'CUSTOM_ID' }),
  }).then((r) => r.json())) as { id: string };
  const path = `/v1/wallets/${wallet.id}/sign-message`;
  return () => ({ method: 'POST', path, headers, body: message });
}

const throughput = (rs: LoadResult[]) => rs.reduce((sum, r) => sum + r.requests, 0) / rs.reduce((sum, r) => sum + r.seconds, 0);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function requestLogBench(options: RequestLogBenchOptions): Promise<void> {
  const { on, off } = options.services;
  const rounds = options.rounds ?? 4;
  const logged = await signer(on.url, on.apiKey);
  const unlogged = await signer(off.url, off.apiKey);
  await closedLoop(on.url, 300, options.concurrency, logged);
  await closedLoop(off.url, 300, options.concurrency, unlogged);
  const results = { on: [] as LoadResult[], off: [] as LoadResult[] };
  for (let round = 0; round < rounds; round++) {
    // Alternating which goes first, so neither always runs on a warmer or cooler machine.
    const order = round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const);
    for (const which of order) {
      const [url, request] = which === 'on' ? [on.url, logged] : [off.url, unlogged];
      results[which].push(await closedLoop(url, options.signs / rounds, options.concurrency, request));
    }
  }
  const openOff = await openLoop(off.url, options.openLoopRate, options.openLoopSeconds, unlogged);
  const openOn = await openLoop(on.url, options.openLoopRate, options.openLoopSeconds, logged);
  const openOff2 = await openLoop(off.url, options.openLoopRate, options.openLoopSeconds, unlogged);
  const openOn2 = await openLoop(on.url, options.openLoopRate, options.openLoopSeconds, logged);

  const share = throughput(results.on) / throughput(results.off);
  const closedP99 = { on: median(results.on.map((r) => r.p99)), off: median(results.off.map((r) => r.p99)) };
  const openP99 = { on: Math.max(openOn.p99, openOn2.p99), off: Math.max(openOff.p99, openOff2.p99) };
  console.log(`\nrequest log — EVM sign-message, closed loop at concurrency ${options.concurrency} (${rounds} interleaved rounds of ${options.signs / rounds}); open loop at ${options.openLoopRate}/s, two rounds each`);
  console.log(`REQUEST_LOG=off ${throughput(results.off).toFixed(0).padStart(8)}/s   median round p99 ${closedP99.off.toFixed(2)} ms   ${JSON.stringify(results.off.map((r) => r.statuses))}`);
  console.log(`REQUEST_LOG=on  ${throughput(results.on).toFixed(0).padStart(8)}/s   median round p99 ${closedP99.on.toFixed(2)} ms   ${JSON.stringify(results.on.map((r) => r.statuses))}`);
  for (const [name, result] of [['off open', openOff], ['on open', openOn], ['off open (2)', openOff2], ['on open (2)', openOn2]] as const) {
    console.log(options.row(`REQUEST_LOG=${name} ${options.openLoopRate}/s`, result));
  }
  console.log(
    `targets: throughput with the log >= 90% of without: ${(share * 100).toFixed(0)}% ${share >= 0.9 ? 'met' : 'NOT met'}; ` +
      `closed-loop p99 on/off ${closedP99.on.toFixed(2)}/${closedP99.off.toFixed(2)} ms, open-loop p99 on/off ${openP99.on.toFixed(2)}/${openP99.off.toFixed(2)} ms`,
  );
}
