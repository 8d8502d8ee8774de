/**
 * Signing with 100 active policies next to signing with none, in the same run:
 *
 * - over HTTP, against the running service: EVM sign-transaction on a wallet of a project with no
 *   policy, then on a wallet of a project with 100 active policies (10 select the wallet, 2 of
 *   those read a daily spend meter), closed loop and open loop;
 * - the evaluation alone, in this process on its own embedded database with the same 100
 *   policies: `PolicyEngine.evaluate` (stamp, decoding, rules, the reserving statement), timed
 *   per call (the commit is part of the signature's audit append).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  applyingPolicies,
  compilePolicy,
  evaluatePolicies,
  meterBounds,
  meterChargesOf,
  meterKeyId,
  parsePolicyDocument,
  parseSignRouteBody,
  requestFactsOf,
  signRouteContext,
  type Caller,
} from '@wallet/domain';
import { loadConfig } from '../src/config.ts';
import { controlFilePath } from '../src/local/control-file.ts';
import { createServices, openConfiguredDatabase } from '../src/services.ts';
import { closedLoop, openLoop, type LoadResult } from './load.ts';

const EVM_CHAIN = 84532;
const DEAD = '0x000000000000000000000000000000000000dEaD';
const POLICIES = 100;
const EVALUATIONS = Number(process.env.BENCH_POLICY_EVALUATIONS ?? 5000);

/** The signed body: a small native transfer to a listed recipient, never over any cap. */
const signBody = (nonce: number) => ({ transaction: { to: DEAD, value: '1000', chainId: EVM_CHAIN, nonce, gasLimit: '21000', maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1000000' } });

/**
 * 100 policies: 10 select the wallet (by id, or EVM on its chain), 2 of them with a daily meter;
 * 90 select other wallet types, other networks or other wallets.
 */
export function benchPolicies(walletId: string): Record<string, unknown>[] {
  const doc = (id: string, selector: Record<string, unknown>, rules: unknown[]) => ({ id, schemaVersion: 'permissions.policy.v1', version: '1', selector, metadata: { productMode: 'guardrail' }, rules });
  const recipients = { id: 'recipients', effect: 'deny', actions: 'all', condition: { not: { fact: 'request.to', op: 'in', value: [DEAD, '0x000000000000000000000000000000000000bEEF'] } } };
  const cap = (value: string) => ({ id: 'cap', effect: 'deny', actions: ['sign_transaction', 'transfer'], condition: { fact: 'request.value.baseUnits', op: 'gt', value } });
  const daily = { id: 'daily', effect: 'deny', actions: ['sign_transaction', 'transfer'], condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: '1000000000000000000000000' } };
  const policies: Record<string, unknown>[] = [];
  for (let i = 0; i < 10; i++) {
    const selector = i % 2 === 0 ? { walletType: 'EVM', walletId: [walletId] } : { walletType: 'EVM', chainId: [String(EVM_CHAIN)] };
    policies.push(doc(`matching-${i}`, selector, i < 2 ? [recipients, daily] : [recipients, cap(String(10n ** 18n + BigInt(i)))]));
  }
  const others = ['SOLANA', 'STELLAR', 'SUI', 'COSMOS'];
  for (let i = 0; i < 90; i++) {
    const selector =
      i % 3 === 0
        ? { walletType: others[i % 4] }
        : i % 3 === 1
          ? { walletType: 'EVM', chainId: [String(1000 + i)] }
          : { walletType: 'EVM', walletId: [`00000000-0000-4000-8000-${String(i).padStart(12, '0')}`] };
    const rules = selector.walletType === 'EVM' ? [recipients, cap(String(10n ** 18n))] : [{ id: 'raw', effect: 'allow', actions: ['raw_signature'] }];
    policies.push(doc(`other-${i}`, selector, rules));
  }
  if (policies.length !== POLICIES) throw new Error(`expected ${POLICIES} policies`);
  return policies;
}

function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}

/**
 * `PolicyEngine.evaluate` (the decision and its spend reservation, left held: the bench's limits
 * are far away), timed per call in this process on a fresh embedded database opened as the
 * service opens it.
 */
export async function evaluationLatency(): Promise<{ p50: number; p99: number; decisionP50: number; decisionP99: number; calls: number }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-eval-'));
  // The database as the service opens it (embedded PGlite in its worker thread, in DATA_DIR/db).
  const config = loadConfig({ APP_ENV: 'local', DATA_DIR: dataDir, LOG_LEVEL: 'warn', LOCAL_DEVNETS: 'off' });
  const database = await openConfiguredDatabase(config);
  const services = await createServices(config, { database });
  try {
    const key = await services.apiKeys.create({ partner: 'bench-eval', plan: 'scale', rateLimitPerMinute: 0 });
    const caller: Caller = { partnerId: key.partnerId, projectId: key.projectId, apiKeyId: key.apiKeyId, environment: 'development', plan: 'scale', requestId: null };
    const created = await services.wallets.create(caller, { type: 'EVM', userIdentifier: 'bench-eval', userIdentifierType: 'CUSTOM_ID' });
    const scope = await services.policies.operatorScope(key.projectId, 'development');
    for (const policy of benchPolicies(created.id)) await services.policies.apply(scope, policy);
    const wallet = await services.wallets.loadWallet(caller, created.id);
    const compiled = benchPolicies(created.id).map((input) => {
      const parsed = parsePolicyDocument(input);
      if (!parsed.ok) throw new Error(`bench policy refused: ${JSON.stringify(parsed)}`);
      return compilePolicy(parsed.document.id, 1, parsed.document);
    });
    const latencies: number[] = [];
    const decisions: number[] = [];
    for (let i = 0; i < EVALUATIONS + 500; i++) {
      const context = signRouteContext(caller, wallet, 'transaction', parseSignRouteBody(wallet, 'transaction', signBody(i)));
      const started = process.hrtime.bigint();
      const decision = await services.policyEngine.evaluate(context);
      const evaluated = process.hrtime.bigint();
      if (decision.outcome !== 'allow') throw new Error(`bench request denied: ${JSON.stringify(decision)}`);
      // The decision alone, in memory: decode, select among the 100, judge, bounds (meters at 0).
      const now = new Date();
      const facts = requestFactsOf(context);
      const applying = applyingPolicies(compiled, facts, now);
      const at = { projectId: key.projectId, environment: 'development' as const, now };
      const totals = new Map(meterChargesOf(applying, facts, at).map((c) => [meterKeyId(c.key), 0n]));
      const judged = evaluatePolicies(applying, facts, totals, at, { permissionsAreOn: true });
      meterBounds(applying, facts, totals, at);
      if (!judged.allowed) throw new Error('bench request denied in memory');
      if (i >= 500) {
        latencies.push(Number(evaluated - started) / 1e6);
        decisions.push(Number(process.hrtime.bigint() - evaluated) / 1e6);
      }
    }
    latencies.sort((a, b) => a - b);
    decisions.sort((a, b) => a - b);
    return { p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), decisionP50: percentile(decisions, 0.5), decisionP99: percentile(decisions, 0.99), calls: latencies.length };
  } finally {
    await services.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export interface PolicyBenchOptions {
  serviceUrl: string;
  dataDir: string;
  /** Creates an API key of a new partner through the keys CLI; answers `{apiKey, projectId}`. */
  createKey(partner: string): Promise<{ apiKey: string; projectId: string }>;
  signs: number;
  concurrency: number;
  openLoopRate: number;
  openLoopSeconds: number;
  row(name: string, result: LoadResult): string;
}

/** Applies the policies through the running service's control route (it holds the embedded database). */
async function applyThroughService(dataDir: string, projectId: string, documents: Record<string, unknown>[]): Promise<void> {
  const control = JSON.parse(readFileSync(controlFilePath(dataDir), 'utf8')) as { url: string; token: string };
  for (const document of documents) {
    const response = await fetch(`${control.url}/internal/cli/policies.apply`, {
      method: 'POST',
      headers: { authorization: `Bearer ${control.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ projectId, environment: 'development', document }),
    });
    if (!response.ok) throw new Error(`policies.apply: ${response.status} ${await response.text()}`);
  }
}

export async function policyBench(options: PolicyBenchOptions): Promise<void> {
  const { serviceUrl } = options;
  const wallet = async (apiKey: string, name: string) =>
    (await fetch(`${serviceUrl}/v1/wallets`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'EVM', userIdentifier: name, userIdentifierType: 'CUSTOM_ID' }),
    }).then((r) => r.json())) as { id: string };
  const none = await options.createKey('bench-no-policies');
  const many = await options.createKey('bench-100-policies');
  const plainWallet = await wallet(none.apiKey, 'bench-plain');
  const guardedWallet = await wallet(many.apiKey, 'bench-guarded');
  await applyThroughService(options.dataDir, many.projectId, benchPolicies(guardedWallet.id));

  const request = (apiKey: string, walletId: string) => (i: number) => ({
    method: 'POST',
    path: `/v1/wallets/${walletId}/sign-transaction`,
    headers: { 'x-api-key': apiKey },
    body: JSON.stringify(signBody(i)),
  });
  const plain = request(none.apiKey, plainWallet.id);
  const guarded = request(many.apiKey, guardedWallet.id);
  await closedLoop(serviceUrl, 300, options.concurrency, plain);
  await closedLoop(serviceUrl, 300, options.concurrency, guarded);
  // Interleaved halves, so drift of the shared machine hits both columns alike.
  const results = { plain: [] as LoadResult[], guarded: [] as LoadResult[] };
  for (let round = 0; round < 2; round++) {
    results.plain.push(await closedLoop(serviceUrl, options.signs / 2, options.concurrency, plain));
    results.guarded.push(await closedLoop(serviceUrl, options.signs / 2, options.concurrency, guarded));
  }
  const throughput = (rs: LoadResult[]) => rs.reduce((sum, r) => sum + r.requests, 0) / rs.reduce((sum, r) => sum + r.seconds, 0);
  const plainOpen = await openLoop(serviceUrl, options.openLoopRate, options.openLoopSeconds, plain);
  const guardedOpen = await openLoop(serviceUrl, options.openLoopRate, options.openLoopSeconds, guarded);
  const evaluation = await evaluationLatency();

  const share = throughput(results.guarded) / throughput(results.plain);
  console.log(`\npolicies — EVM sign-transaction, closed loop at concurrency ${options.concurrency} (two interleaved halves of ${options.signs / 2})`);
  console.log(`no policy                          ${throughput(results.plain).toFixed(0).padStart(8)}/s   ${JSON.stringify(results.plain.map((r) => r.statuses))}`);
  console.log(`100 policies (10 match, 2 metered) ${throughput(results.guarded).toFixed(0).padStart(8)}/s   ${JSON.stringify(results.guarded.map((r) => r.statuses))}`);
  console.log(options.row(`no policy open ${options.openLoopRate}/s`, plainOpen));
  console.log(options.row(`100 policies open ${options.openLoopRate}/s`, guardedOpen));
  console.log(`policy decision of 100 policies in memory (decode, select, judge, bounds; ${evaluation.calls} calls): p50 ${evaluation.decisionP50.toFixed(3)} ms p99 ${evaluation.decisionP99.toFixed(3)} ms`);
  console.log(`policy stage with its reserving statement (PolicyEngine.evaluate, in process): p50 ${evaluation.p50.toFixed(3)} ms p99 ${evaluation.p99.toFixed(3)} ms`);
  console.log(
    `targets: throughput with 100 policies >= 80% of none: ${(share * 100).toFixed(0)}% ${share >= 0.8 ? 'met' : 'NOT met'}; evaluation p99 <= 1 ms: ${evaluation.decisionP99 <= 1 ? 'met' : 'NOT met'} (in memory)`,
  );
}
