import { z } from 'zod';
import { evmContractAddressSchema } from '../shared/evm-contract-address.ts';
import { POOL_YIELD_MARKET_IDS, VAULT_YIELD_MARKET_IDS, ALL_YIELD_MARKET_IDS } from './markets.ts';

const contractAddress = evmContractAddressSchema;

const poolEntry = z.strictObject({ id: z.enum(POOL_YIELD_MARKET_IDS), usdc: contractAddress, pool: contractAddress, aToken: contractAddress });
const vaultEntry = z.strictObject({ id: z.enum(VAULT_YIELD_MARKET_IDS), usdc: contractAddress, vault: contractAddress, bundler: contractAddress });

/**
 * One entry of YIELD_MARKETS. The market id (one of the spec's table) fixes the chain and the
 * provider; the entry gives the addresses: `usdc` and `pool` + `aToken` for a pool-provider
 * market, `usdc` and `vault` + `bundler` (the official bundler wrapper) for a vault-provider one.
 */
export const yieldMarketEntrySchema = z.unknown().transform((value, ctx) => {
  const id = typeof value === 'object' && value !== null && 'id' in value ? (value as { id: unknown }).id : undefined;
  if (typeof id !== 'string' || !(ALL_YIELD_MARKET_IDS as string[]).includes(id)) {
    ctx.addIssue({ code: 'custom', path: ['id'], message: `must be one of ${ALL_YIELD_MARKET_IDS.join(', ')}` });
    return z.NEVER;
  }
  const parsed = ((POOL_YIELD_MARKET_IDS as string[]).includes(id) ? poolEntry : vaultEntry).safeParse(value);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issueMessage(issue) });
  return z.NEVER;
});

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.join(', ')} for this market's provider`;
  if (issue.code === 'invalid_type' && issue.input === undefined) return 'is required';
  return issue.message;
}

export type ConfiguredYieldMarket = z.output<typeof poolEntry> | z.output<typeof vaultEntry>;

/** YIELD_MARKETS: a JSON array of entries, each market id at most once. */
export const yieldMarketsConfigSchema = z
  .array(yieldMarketEntrySchema)
  .superRefine((entries, ctx) => {
    const seen = new Set<string>();
    entries.forEach((entry, index) => {
      const { id } = entry as ConfiguredYieldMarket;
      if (seen.has(id)) ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `${id} is listed twice` });
      seen.add(id);
    });
  })
  .transform((entries) => entries as ConfiguredYieldMarket[]);

/** Parses the text of YIELD_MARKETS (JSON); the error names the path of the problem. */
export const yieldMarketsJson = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array of yield markets' });
      return z.NEVER;
    }
  })
  .pipe(yieldMarketsConfigSchema);
