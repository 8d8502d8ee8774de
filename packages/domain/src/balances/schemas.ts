/**
 * GET /v1/wallets/{walletId}/balances: the query, the answer and the codes it adds. Field names
 * follow the public REST shape of a single balance (`balance`, `rawBalance`, `symbol`, query
 * `chainId` and `network`); docs/api-conventions.md says where we go beyond it.
 */
import { z } from 'zod';
import { identifierString } from '../shared/zod.ts';

const chainIdParam = z
  .string()
  .regex(/^[0-9]{1,20}$/, 'must be an integer chain id as a decimal string, e.g. "84532"')
  .transform(Number)
  .meta({ description: 'EVM wallets (required): the chain, as GET /v1/chains lists it' });
const networkParam = identifierString()
  .min(1)
  .max(64)
  .meta({ description: 'Solana wallets: the network as GET /v1/chains lists it (`SOLANA` default, or `SOLANA_DEVNET`)' });

export const balancesQuerySchema = z.strictObject({ chainId: chainIdParam.optional(), network: networkParam.optional() });

/** The console (tRPC, GraphQL): the wallet and the same query. */
export const balancesInput = z.strictObject({
  walletId: z.string().trim().min(1).max(100),
  chainId: z.union([z.string(), z.number().int().nonnegative().transform(String)]).pipe(chainIdParam).optional(),
  network: networkParam.optional(),
});

const raw = z.string().meta({ description: 'Base units as a decimal string: wei, lamports, or the token\'s smallest unit ("1000000" is 1 USDC)' });
const decimal = z.string().meta({ description: 'The same amount in whole tokens, as a decimal string without trailing zeros ("1.5")' });
const common = {
  symbol: z.string().meta({ description: 'ETH, SOL, USDC, the ERC-20\'s symbol(); the token address or mint when the token has none on chain' }),
  decimals: z.number().int().min(0).max(255),
  rawBalance: raw,
  balance: decimal,
};

export const evmBalanceSchema = z
  .object({
    asset: z.enum(['native', 'erc20']),
    tokenAddress: z.string().nullable().meta({ description: 'The ERC-20 contract; null for the native currency' }),
    ...common,
    blockNumber: z.number().int().meta({ description: 'The block every balance of the answer was read at' }),
  })
  .meta({ id: 'EvmBalance' });

export const solanaBalanceSchema = z
  .object({
    asset: z.enum(['native', 'spl']),
    tokenAddress: z.string().nullable().meta({ description: 'The SPL mint; null for SOL' }),
    tokenProgram: z.string().nullable().meta({ description: 'The token program of the mint (Token or Token-2022); null for SOL' }),
    ...common,
    slot: z.number().int().meta({ description: 'The slot this balance was read at (SOL and each token program are separate reads)' }),
  })
  .meta({ id: 'SolanaBalance' });

export const walletBalancesSchema = z
  .discriminatedUnion('type', [
    z.object({
      walletId: z.string(),
      type: z.literal('EVM'),
      address: z.string(),
      chainId: z.string().meta({ description: 'The chain read, as a decimal string' }),
      balances: z.array(evmBalanceSchema).meta({
        description: "The native currency first, then the chain's USDC when configured, then every other ERC-20 the wallet's transaction records moved on this chain",
      }),
    }),
    z.object({
      walletId: z.string(),
      type: z.literal('SOLANA'),
      address: z.string(),
      network: z.string(),
      balances: z.array(solanaBalanceSchema).meta({
        description: "SOL first, then the network's USDC when configured, then every other mint of the wallet's token accounts (both token programs; accounts of one mint summed)",
      }),
    }),
  ])
  .meta({ id: 'WalletBalances' });

export type WalletBalances = z.infer<typeof walletBalancesSchema>;
export type EvmBalance = z.infer<typeof evmBalanceSchema>;
export type SolanaBalance = z.infer<typeof solanaBalanceSchema>;

const errorBody = <Code extends string>(id: string, code: Code) => z.object({ code: z.literal(code), message: z.string() }).meta({ id });

/** The codes this route adds (the route lists them in the OpenAPI document). */
export const balanceErrorBodies = {
  unsupportedChain: errorBody('UnsupportedChain', 'UNSUPPORTED_CHAIN'),
  unsupportedWalletType: errorBody('UnsupportedWalletType', 'UNSUPPORTED_WALLET_TYPE'),
  balanceReadFailed: errorBody('BalanceReadFailed', 'BALANCE_READ_FAILED'),
};
