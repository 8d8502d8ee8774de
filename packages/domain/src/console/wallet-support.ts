/**
 * The console's wallet page beyond the wallet itself: its balances read live from every configured
 * chain of its type (native currency and USDC), and the policies whose selector takes it.
 */
import { decodeFunctionResult, encodeFunctionData, type Hex } from 'viem';
import type { z } from 'zod';
import { environments } from '../api-keys/plans.ts';
import type { ChainDirectory, ChainInfo } from '../chains/service.ts';
import type { WalletRecord } from '../ports.ts';
import { selectorTakesWallet } from '../policies/evaluate.ts';
import type { PolicyStore } from '../policies/ports.ts';
import { toPolicyView, type PolicyView } from '../policies/service.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import type { ChainGateways } from '../transactions/gateways.ts';
import { ERC20_ABI } from '../yield/abis.ts';
import { walletIdInput } from './schemas.ts';
import type { PartnerPrincipal, PartnerScope } from './scope.ts';

/** How long the page waits for a chain before showing its balances as unavailable. */
export const BALANCE_TIMEOUT_MS = 2_000;

/** One asset's balance: base units, or null with `unavailable` when the chain did not answer in time. */
export interface AssetBalanceView {
  asset: 'native' | 'usdc';
  symbol: string;
  decimals: number;
  /** The token address (USDC); null for the native currency. */
  tokenAddress: string | null;
  baseUnits: string | null;
  unavailable: boolean;
}

export interface ChainBalancesView {
  type: ChainInfo['type'];
  chainId: string | null;
  network: string | null;
  name: string;
  balances: AssetBalanceView[];
  /** Why the chain's balances are unavailable (time-out, RPC error); null when they were read. */
  error: string | null;
}

export interface ConsoleWalletSupportDeps {
  scope: PartnerScope;
  directory: ChainDirectory;
  gateways: ChainGateways;
  policies: Pick<PolicyStore, 'listActive'>;
  clock: Clock;
  /** Default BALANCE_TIMEOUT_MS. */
  balanceTimeoutMs?: number;
}

class BalanceTimeout extends Error {}

function within<T>(ms: number, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BalanceTimeout(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/** Reads [native, usdc?] of the wallet on one chain; throws when the chain has no gateway or does not answer. */
async function readBalances(gateways: ChainGateways, chain: ChainInfo, wallet: WalletRecord): Promise<bigint[]> {
  if (chain.type === 'EVM') {
    const gateway = gateways.evm(Number(chain.chainId));
    if (!gateway) throw new Error('no gateway for this chain');
    const owner = wallet.address as Hex;
    const native = gateway.getBalance(owner);
    if (!chain.usdc) return [await native];
    const usdc = gateway
      .callAtLatestBlock([{ to: chain.usdc.address as Hex, data: encodeFunctionData({ abi: ERC20_ABI, functionName: 'balanceOf', args: [owner] }) }])
      .then(({ results: [result] }) => {
        if (!result?.ok) throw new Error(`USDC balanceOf reverted: ${result && !result.ok ? result.message : 'no result'}`);
        return decodeFunctionResult({ abi: ERC20_ABI, functionName: 'balanceOf', data: result.data }) as bigint;
      });
    return Promise.all([native, usdc]);
  }
  const gateway = gateways.solana(chain.network!);
  if (!gateway) throw new Error('no gateway for this network');
  return Promise.all([gateway.getBalance(wallet.address), ...(chain.usdc ? [gateway.getTokenBalance(wallet.address, chain.usdc.address)] : [])]);
}

export function createConsoleWalletSupport(deps: ConsoleWalletSupportDeps) {
  const timeoutMs = deps.balanceTimeoutMs ?? BALANCE_TIMEOUT_MS;

  async function chainBalances(chain: ChainInfo, wallet: WalletRecord): Promise<ChainBalancesView> {
    const assets = [
      { asset: 'native' as const, symbol: chain.nativeCurrency.symbol, decimals: chain.nativeCurrency.decimals, tokenAddress: null },
      ...(chain.usdc ? [{ asset: 'usdc' as const, symbol: 'USDC', decimals: chain.usdc.decimals, tokenAddress: chain.usdc.address }] : []),
    ];
    const where = { type: chain.type, chainId: chain.chainId ?? null, network: chain.network ?? null, name: chain.name };
    try {
      const read = await within(timeoutMs, readBalances(deps.gateways, chain, wallet));
      return { ...where, error: null, balances: assets.map((a, i) => ({ ...a, baseUnits: read[i]!.toString(), unavailable: false })) };
    } catch (error) {
      const reason = error instanceof BalanceTimeout ? error.message : error instanceof Error ? error.message : String(error);
      return { ...where, error: reason, balances: assets.map((a) => ({ ...a, baseUnits: null, unavailable: true })) };
    }
  }

  return {
    /** Every configured chain of the wallet's type, read in parallel, each within the time-out. */
    async balances(principal: PartnerPrincipal, input: z.input<typeof walletIdInput>): Promise<ChainBalancesView[]> {
      const wallet = await deps.scope.wallet(principal, parseInput(walletIdInput, input).walletId);
      const chains = deps.directory.list().filter((c) => c.type === wallet.type);
      return Promise.all(chains.map((chain) => chainBalances(chain, wallet)));
    },

    /** The active policies in effect now, in both environments of the wallet's project, whose selector takes the wallet. */
    async policies(principal: PartnerPrincipal, input: z.input<typeof walletIdInput>): Promise<PolicyView[]> {
      const wallet = await deps.scope.wallet(principal, parseInput(walletIdInput, input).walletId);
      const now = deps.clock.now();
      const perEnvironment = await Promise.all(
        environments.map(async (environment) =>
          (await deps.policies.listActive({ projectId: wallet.projectId, environment }, now, wallet.type))
            .filter((p) => selectorTakesWallet(p, wallet))
            .map(toPolicyView),
        ),
      );
      return perEnvironment.flat();
    },
  };
}

export type ConsoleWalletSupport = ReturnType<typeof createConsoleWalletSupport>;
