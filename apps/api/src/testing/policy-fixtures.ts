import { readFileSync } from 'node:fs';
import { repoRoot } from '../config.ts';
import type { TestApp } from './harness.ts';

export const EVM_CHAIN = 84532;
export const DEAD = '0x000000000000000000000000000000000000dEaD';
export const BEEF = '0x000000000000000000000000000000000000bEEF';
export const OTHER = '0x1111111111111111111111111111111111111111';
export const EVM_FEES = { maxFeePerGas: '20000000000', maxPriorityFeePerGas: '1000000000', gasLimit: '100000' };
export const MILLI_ETH = 1_000_000_000_000_000n;

/** A `deniedBy` entry as a POLICY_DENIED body lists it. */
export const denial = (policyId: string, ruleId: string, reason = 'rule-matched', policyVersion = '1') => ({ reason, policyId, policyVersion, ruleId });

/** A document of ../shared/spec/policy-examples/, exactly as written. */
export function examplePolicy(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(`${repoRoot}/../shared/spec/policy-examples/${name}`, 'utf8')) as Record<string, unknown>;
}

/** A guardrail document of `walletType` with `rules` (and selector extras). */
export function guardrail(id: string, walletType: string, rules: unknown[], selector: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return { id, schemaVersion: 'permissions.policy.v1', version: '1', selector: { walletType, ...selector }, metadata: { productMode: 'guardrail' }, rules, ...extra };
}

/** A fresh partner project with its own key: policies of one test never reach another's. */
export async function policyProject(app: TestApp, options: { environment?: 'development' | 'production'; partner?: string } = {}) {
  const environment = options.environment ?? 'development';
  const partner = options.partner ?? `policy-${Math.random().toString(36).slice(2)}`;
  const issued = await app.services.apiKeys.create({ partner, plan: 'scale', rateLimitPerMinute: 0, environment });
  const scope = await app.services.policies.operatorScope(issued.projectId, environment);
  return {
    ...issued,
    partner,
    environment,
    key: issued.apiKey,
    apply: (document: unknown) => app.services.policies.apply(scope, document),
    deactivate: (policyId: string) => app.services.policies.deactivate(scope, policyId),
    post: (urlPath: string, body: unknown, headers: Record<string, string> = {}) => app.request('POST', urlPath, { key: issued.apiKey, body, headers }),
    get: (urlPath: string) => app.request('GET', urlPath, { key: issued.apiKey }),
    async wallet(type: string): Promise<{ id: string; address: string; publicKey: string }> {
      const response = await app.request('POST', '/v1/wallets', { key: issued.apiKey, body: { type, userIdentifier: `pol-${type}-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } });
      if (response.status !== 201 && response.status !== 200) throw new Error(JSON.stringify(response.body));
      return response.body as { id: string; address: string; publicKey: string };
    },
  };
}

export type PolicyProject = Awaited<ReturnType<typeof policyProject>>;

/** What a denied request must not leave behind: signature audit rows, records, reservations of the wallet. */
export async function traces(app: TestApp, walletId: string) {
  const prisma = app.database.prisma;
  const [signatures, records, reservations] = await Promise.all([
    prisma.auditLog.count({ where: { walletId, action: { startsWith: 'wallet.sign' } } }),
    prisma.transactionRecord.count({ where: { walletId } }),
    prisma.$queryRawUnsafe<{ n: bigint }[]>(`SELECT count(*)::bigint AS n FROM policy_spend_reservations WHERE charges::text LIKE '%' || $1 || '%'`, walletId),
  ]);
  return { signatures, records, reservations: Number(reservations[0]!.n) };
}
