import { z } from 'zod';
import { invalidRequest, notFound } from '../errors.ts';
import type { WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import { tooManyDecimalsMessage, wholeTokensMessage } from '../shared/amount-messages.ts';
import { fieldError, parseInput, uuidSchema } from '../shared/zod.ts';
import type { WalletService } from '../wallets/service.ts';

/** One configured chain as partners see it in GET /v1/chains. */
export interface ChainInfo {
  /** `EVM` chains are named by `chainId` (decimal string), Solana by `network`. */
  type: 'EVM' | 'SOLANA';
  chainId?: string;
  network?: string;
  name: string;
  nativeCurrency: { symbol: string; decimals: number };
  usdc: { address: string; decimals: number } | null;
  isDevnet: boolean;
}

export interface ChainDirectory {
  list(): ChainInfo[];
}

export type FaucetAsset = 'native' | 'usdc';

/** Local mode only: funds addresses on the local devnets. */
export interface LocalFaucet {
  fund(target: { type: 'EVM' | 'SOLANA'; address: string }, asset: FaucetAsset, baseUnits: bigint): Promise<{ txHash: string }>;
}

/**
 * Local mode only: where the local devnets answer JSON-RPC (`GET /v1/local/devnets`, and the
 * `{"devnets": …}` line `npm start` prints), so viem, cast or a Solana client can reach them.
 */
export interface LocalDevnetEndpoints {
  evm: { chainId: number; rpcUrl: string; sponsorship?: LocalDevnetSponsorship }[];
  solana: { network: string; rpcUrl: string }[];
}

/** The devnet's gas sponsorship contracts and the service's relayer on it (docs/sponsorship.md). */
export interface LocalDevnetSponsorship {
  entryPoint: string;
  delegate: string;
  paymaster: string;
  relayer: string;
}

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/);

export const localDevnetsResponse = z
  .object({
    evm: z.array(
      z.object({
        chainId: z.number().int(),
        rpcUrl: z.url(),
        sponsorship: z
          .object({
            entryPoint: evmAddress.describe('EntryPoint v0.8'),
            delegate: evmAddress.describe('Simple7702Account, the contract sponsored wallets delegate to (EIP-7702)'),
            paymaster: evmAddress.describe("The verifying paymaster signed by the service's sponsor key"),
            relayer: evmAddress.describe("The service's relayer key, which submits sponsored operations"),
          })
          .optional()
          .describe('Gas sponsorship on this devnet, when the service set it up at start'),
      }),
    ),
    solana: z.array(z.object({ network: z.string(), rpcUrl: z.url() })),
  })
  .meta({ id: 'LocalDevnets' });

export const chainListSchema = z
  .object({
    chains: z.array(
      z.object({
        type: z.enum(['EVM', 'SOLANA']),
        chainId: z.string().optional(),
        network: z.string().optional(),
        name: z.string(),
        nativeCurrency: z.object({ symbol: z.string(), decimals: z.number().int() }),
        usdc: z.object({ address: z.string(), decimals: z.number().int() }).nullable(),
        isDevnet: z.boolean(),
      }),
    ),
  })
  .meta({ id: 'ChainList' });

const FAUCET_EXAMPLE = '"1.5" for 1.5 ETH, SOL or USDC';
const amountError = (issue: { input?: unknown }) => wholeTokensMessage(FAUCET_EXAMPLE, issue.input);

export const faucetBody = z
  .strictObject({
    walletId: z.string().max(64),
    amount: z
      .string({ error: amountError })
      .regex(/^(0|[1-9]\d{0,17})(\.\d{1,18})?$/, { error: amountError })
      .describe('Whole tokens as a decimal string ("1.5" is 1.5 ETH, SOL or USDC), not base units; at most the token\'s decimals'),
    token: z.enum(['native', 'usdc']).default('native'),
  })
  .meta({ id: 'LocalFaucetRequest' });

export const faucetResponse = z
  .object({ walletId: z.string(), address: z.string(), token: z.enum(['native', 'usdc']), amount: z.string(), baseUnits: z.string(), txHash: z.string() })
  .meta({ id: 'LocalFaucetResponse' });

/** Decimal string in whole tokens to integer base units; more decimals than the asset (`symbol`) has is a 400. */
export function toBaseUnits(amount: string, { symbol, decimals }: { symbol: string; decimals: number }): bigint {
  const [whole = '0', fraction = ''] = amount.split('.');
  if (fraction.length > decimals) throw fieldError('amount', tooManyDecimalsMessage(symbol, decimals, amount));
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

export interface ChainServiceDeps {
  directory: ChainDirectory;
  faucet?: LocalFaucet;
  devnets?: LocalDevnetEndpoints;
  loadWallet: WalletService['loadWallet'];
  /** Unscoped lookup for the operator's faucet CLI. */
  findWallet(walletId: string): Promise<WalletRecord | null>;
}

export function createChainService({ directory, faucet, devnets, loadWallet, findWallet }: ChainServiceDeps) {
  async function fundWallet(wallet: WalletRecord, input: z.output<typeof faucetBody>) {
    if (!faucet) throw invalidRequest('The faucet exists only in local mode');
    if (wallet.type !== 'EVM' && wallet.type !== 'SOLANA') throw invalidRequest('The local faucet funds EVM and SOLANA wallets');
    const chain = directory.list().find((c) => c.type === wallet.type && c.isDevnet);
    if (!chain) throw invalidRequest(`No local ${wallet.type} devnet is running`);
    const asset = input.token === 'usdc' ? { symbol: 'USDC', decimals: chain.usdc?.decimals ?? 6 } : chain.nativeCurrency;
    const baseUnits = toBaseUnits(input.amount, asset);
    if (baseUnits === 0n) throw fieldError('amount', wholeTokensMessage(FAUCET_EXAMPLE, input.amount));
    const { txHash } = await faucet.fund({ type: wallet.type, address: wallet.address }, input.token, baseUnits);
    return { walletId: wallet.id, address: wallet.address, token: input.token, amount: input.amount, baseUnits: baseUnits.toString(), txHash };
  }

  return {
    list(): z.output<typeof chainListSchema> {
      return { chains: directory.list() };
    },

    /** Local mode only (the route is not mounted otherwise). */
    localDevnets(): LocalDevnetEndpoints {
      if (!devnets) throw invalidRequest('The local devnets exist only in local mode');
      return devnets;
    },

    /** Absent outside local mode (the route is not mounted). */
    async fund(caller: Caller, body: unknown): Promise<z.output<typeof faucetResponse>> {
      const input = parseInput(faucetBody, body);
      return fundWallet(await loadWallet(caller, input.walletId), input);
    },

    /** The operator's `npm run faucet`: any wallet of this deployment, by id. */
    async fundById(body: unknown): Promise<z.output<typeof faucetResponse>> {
      const input = parseInput(faucetBody, body);
      const wallet = uuidSchema.safeParse(input.walletId).success ? await findWallet(input.walletId) : null;
      if (!wallet) throw notFound('Wallet');
      return fundWallet(wallet, input);
    },
  };
}

export type ChainService = ReturnType<typeof createChainService>;
