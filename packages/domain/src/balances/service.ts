/**
 * The wallet's balances, read from the chain (never from records): REST
 * GET /v1/wallets/{walletId}/balances with the partner's key, and the console (tRPC, GraphQL) for the
 * staff member's partner. Both load the wallet their own way, then run the same read.
 *
 * 400 INVALID_REQUEST for a malformed query, a missing `chainId` (EVM) or a parameter of the other
 * chain type; 404 for a missing or foreign wallet; 400 UNSUPPORTED_WALLET_TYPE for COSMOS, STELLAR
 * and SUI; 400 UNSUPPORTED_CHAIN for a chain or network the registry does not list; 503
 * RPC_UNAVAILABLE when the chain cannot be reached; 502 BALANCE_READ_FAILED when the configured
 * USDC does not answer balanceOf.
 */
import type { z } from 'zod';
import type { ChainDirectory, ChainInfo } from '../chains/service.ts';
import type { PartnerPrincipal, PartnerScope } from '../console/scope.ts';
import { ApiError } from '../errors.ts';
import type { WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import { fieldError, parseInput } from '../shared/zod.ts';
import { rpcUnavailable } from '../transactions/context.ts';
import { ChainUnavailableError, type Hex } from '../transactions/gateways.ts';
import type { WalletService } from '../wallets/service.ts';
import { balanceCalls, decodeEvmBalances, tokensToRead } from './evm.ts';
import type { BalanceChains, MovedTokens } from './ports.ts';
import { balancesInput, balancesQuerySchema, type WalletBalances } from './schemas.ts';
import { decodeSolanaBalances } from './solana.ts';

export interface BalanceServiceDeps {
  directory: ChainDirectory;
  chains: BalanceChains;
  movedTokens: MovedTokens;
  loadWallet: WalletService['loadWallet'];
  scope: Pick<PartnerScope, 'wallet'>;
}

/** Solana requests without `network` read this one, as transfers do. */
export const DEFAULT_SOLANA_NETWORK = 'SOLANA';

const unsupportedChain = (what: string) => new ApiError(400, 'UNSUPPORTED_CHAIN', `${what} is not configured in this deployment (see GET /v1/chains)`);

type Query = z.output<typeof balancesQuerySchema>;

export function createBalanceService(deps: BalanceServiceDeps) {
  const chainOf = (predicate: (c: ChainInfo) => boolean) => deps.directory.list().find(predicate);

  async function withChain<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ChainUnavailableError) throw rpcUnavailable(error);
      throw error;
    }
  }

  async function evm(wallet: WalletRecord, query: Query): Promise<WalletBalances> {
    if (query.network !== undefined) throw fieldError('network', 'is for Solana wallets; EVM wallets take chainId');
    if (query.chainId === undefined) throw fieldError('chainId', 'required for EVM wallets');
    const chainId = String(query.chainId);
    const chain = chainOf((c) => c.type === 'EVM' && c.chainId === chainId);
    if (!chain) throw unsupportedChain(`chain ${chainId}`);
    const reads = deps.chains.evm(query.chainId);
    if (!reads) throw rpcUnavailable(new Error(`no RPC configured for chain ${chainId}`));
    const tokens = tokensToRead(chain, await deps.movedTokens.erc20(wallet.projectId, wallet.id, chainId));
    const snapshot = await withChain(() => reads.read(wallet.address as Hex, balanceCalls(wallet.address as Hex, tokens)));
    return { walletId: wallet.id, type: 'EVM', address: wallet.address, chainId, balances: decodeEvmBalances(chain, tokens, snapshot) };
  }

  async function solana(wallet: WalletRecord, query: Query): Promise<WalletBalances> {
    if (query.chainId !== undefined) throw fieldError('chainId', 'is for EVM wallets; Solana wallets take network');
    const network = query.network ?? DEFAULT_SOLANA_NETWORK;
    const chain = chainOf((c) => c.type === 'SOLANA' && c.network === network);
    if (!chain) throw unsupportedChain(`network ${network}`);
    const reads = deps.chains.solana(network);
    if (!reads) throw rpcUnavailable(new Error(`no RPC configured for network ${network}`));
    const snapshot = await withChain(() => reads.read(wallet.address));
    return { walletId: wallet.id, type: 'SOLANA', address: wallet.address, network, balances: decodeSolanaBalances(chain, snapshot) };
  }

  function read(wallet: WalletRecord, query: Query): Promise<WalletBalances> {
    if (wallet.type === 'EVM') return evm(wallet, query);
    if (wallet.type === 'SOLANA') return solana(wallet, query);
    throw new ApiError(400, 'UNSUPPORTED_WALLET_TYPE', `Balances are read for EVM and SOLANA wallets; this wallet is ${wallet.type}`);
  }

  return {
    /** REST: the calling key's project. */
    async get(caller: Caller, walletId: string, query: unknown): Promise<WalletBalances> {
      const input = parseInput(balancesQuerySchema, query);
      return read(await deps.loadWallet(caller, walletId), input);
    },
    /** The console: any wallet of the staff member's partner (another partner's is the 404 of a missing one). */
    async forStaff(principal: PartnerPrincipal, input: z.input<typeof balancesInput>): Promise<WalletBalances> {
      const { walletId, ...query } = parseInput(balancesInput, input);
      return read(await deps.scope.wallet(principal, walletId), query);
    },
  };
}

export type BalanceService = ReturnType<typeof createBalanceService>;
