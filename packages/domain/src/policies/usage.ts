/**
 * The usage snapshot of a policy's spend meters for one wallet (GET .../policies/{policyId}/usage):
 * one meter per aggregate condition of the active version, for the calling API key, the wallet,
 * the network in the query and the current fixed window. Current usage, not a preview.
 */
import { z } from 'zod';
import { invalidRequest, notFound } from '../errors.ts';
import type { WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import { aggregatesOf, compilePolicy, normalizeValue, type CompiledAggregate } from './compile.ts';
import { meterKeyId, type MeterKey, type MeterStore } from './evaluation-types.ts';
import { policyValueProblem } from './facts.ts';
import type { PolicyStore } from './ports.ts';

export const policyMeterSchema = z
  .object({
    ruleId: z.string(),
    meter: z.enum(['spend.native', 'spend.token']),
    asset: z.string().describe('`native`, or the token (EVM contract lower-cased, SPL mint, Cosmos denom, Stellar CODE:ISSUER)'),
    window: z.string().describe('As written in the policy, e.g. "1d"'),
    windowStart: z.string().describe('Start of the current fixed window (UTC, aligned to the Unix epoch)'),
    windowEnd: z.string().describe('End of the current window, exclusive: the meter resets then'),
    op: z.enum(['gt', 'gte', 'lt', 'lte']),
    limit: z.string().describe('The rule compares the meter after a request with this value (base units)'),
    spent: z.string().describe('Signed in this window: a signature exists, broadcast or not'),
    reserved: z.string().describe('Held by signatures in progress; becomes spent or is released'),
    remaining: z.string().describe('What one more request may add before the rule denies; 0 when none'),
  })
  .meta({ id: 'PolicyMeter' });

export const policyUsageSchema = z.object({ meters: z.array(policyMeterSchema) }).meta({ id: 'PolicyUsage' });
export type PolicyMeterView = z.output<typeof policyMeterSchema>;

const usageQuery = z.strictObject({
  chainId: z.string({ error: 'chainId is required: the network in the wallet type\'s form, e.g. "84532", "solana:devnet"' }).min(1),
  tokenAddress: z.string().min(1).optional(),
  walletId: z.string().optional(),
});

export interface PolicyUsageDeps {
  store: Pick<PolicyStore, 'findActive'>;
  meters: MeterStore;
  clock: Clock;
  loadWallet(caller: Caller, walletId: string): Promise<WalletRecord>;
}

type Aggregate = CompiledAggregate;

/** What one more request may add: for gt/gte limits, the room left; for lt/lte (floors) nothing is capped. */
function remaining(op: Aggregate['op'], limit: bigint, used: bigint): bigint {
  const room = op === 'gt' ? limit - used : op === 'gte' ? limit - used - 1n : 0n;
  return room > 0n ? room : 0n;
}

export function createPolicyUsage({ store, meters, clock, loadWallet }: PolicyUsageDeps) {
  return {
    /** `userId` set: the users/{userId} form, where the wallet must be that user's (else 404). */
    async usage(caller: Caller, policyId: string, query: unknown, path: { walletId?: string; userId?: string }): Promise<{ meters: PolicyMeterView[] }> {
      const input = parseInput(usageQuery, query);
      const walletId = path.walletId ?? input.walletId;
      if (!walletId) throw invalidRequest('walletId is required in the query of the users/{userId} form');
      if (path.walletId && input.walletId !== undefined) throw invalidRequest('walletId belongs in the path of this route, not in the query');
      const wallet = await loadWallet(caller, walletId);
      if (path.userId !== undefined && wallet.claimedByUserId !== path.userId) throw notFound('Wallet');
      const record = await store.findActive({ projectId: caller.projectId, environment: caller.environment }, policyId);
      if (!record) throw notFound('Policy');
      if (record.walletType !== wallet.type) throw invalidRequest(`Policy ${policyId} selects ${record.walletType} wallets; this wallet is ${wallet.type}`);
      const chainProblem = policyValueProblem('chainId', wallet.type, input.chainId);
      if (chainProblem) throw invalidRequest(`chainId: ${chainProblem}`);
      const tokenProblem = input.tokenAddress === undefined ? null : policyValueProblem('asset', wallet.type, input.tokenAddress);
      if (tokenProblem) throw invalidRequest(`tokenAddress: ${tokenProblem}`);
      const token = input.tokenAddress === undefined ? null : normalizeValue('asset', wallet.type, input.tokenAddress);

      const now = clock.now();
      const policy = compilePolicy(record.policyId, record.version, record.document);
      const wanted: { ruleId: string; condition: Aggregate; key: MeterKey }[] = [];
      for (const rule of policy.rules) {
        for (const condition of aggregatesOf(rule.condition)) {
          const asset = condition.meter === 'spend.native' ? 'native' : (condition.asset ?? token);
          if (asset === null) continue; // a per-asset token meter needs tokenAddress
          const start = Math.floor(now.getTime() / condition.windowMs) * condition.windowMs;
          const key: MeterKey = {
            projectId: caller.projectId,
            environment: caller.environment,
            apiKeyId: caller.apiKeyId,
            walletId: wallet.id,
            network: input.chainId.toLowerCase(),
            asset,
            windowMs: condition.windowMs,
            windowStart: new Date(start),
          };
          wanted.push({ ruleId: rule.id, condition, key });
        }
      }
      const values = await meters.read(wanted.map((w) => w.key));
      return {
        meters: wanted.map(({ ruleId, condition, key }) => {
          const value = values.get(meterKeyId(key)) ?? { spent: 0n, reserved: 0n };
          return {
            ruleId,
            meter: condition.meter,
            asset: key.asset,
            window: condition.window,
            windowStart: key.windowStart.toISOString(),
            windowEnd: new Date(key.windowStart.getTime() + key.windowMs).toISOString(),
            op: condition.op,
            limit: condition.limit.toString(),
            spent: value.spent.toString(),
            reserved: value.reserved.toString(),
            remaining: remaining(condition.op, condition.limit, value.spent + value.reserved).toString(),
          };
        }),
      };
    },
  };
}

export type PolicyUsage = ReturnType<typeof createPolicyUsage>;
