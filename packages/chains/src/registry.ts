import type {
  BalanceChains,
  BatchCallChain,
  ChainDirectory,
  ChainGateways,
  ChainInfo,
  EvmBalanceReads,
  EvmGateway,
  SolanaBalanceReads,
  SolanaGateway,
  SponsoredOperationChain,
  SponsorshipChainConfig,
} from '@wallet/domain';
import { createEvmBalanceReads, createSolanaBalanceReads } from './gateways/balance-reads.ts';
import { createSponsoredOperationChain } from './evm/sponsorship/operation-chain.ts';
import { createBatchCallChain } from './evm/calls/batch-chain.ts';
import { createEvmGateway } from './gateways/evm-gateway.ts';
import { createSolanaGateway } from './gateways/solana-gateway.ts';

/** One chain of the deployment's configuration (env CHAINS, or the local devnets). */
export type ChainEntry =
  | {
      type: 'EVM';
      chainId: number;
      rpcUrl: string;
      name?: string;
      nativeSymbol?: string;
      usdcAddress?: string;
      isDevnet?: boolean;
    }
  | {
      type: 'SOLANA';
      network: string;
      rpcUrl: string;
      name?: string;
      usdcMint?: string;
      isDevnet?: boolean;
    };

export interface ChainRegistry {
  directory: ChainDirectory;
  gateways: ChainGateways;
  /** The balances route's batched reads, over the same RPCs. */
  balances: BalanceChains;
  /** Sponsored user operations on a configured EVM chain (undefined when the chain is not configured). */
  sponsoredOperations: (config: SponsorshipChainConfig) => SponsoredOperationChain | undefined;
  /** Batched calls through the delegate (Simple7702Account) on a configured EVM chain (undefined when it is not configured). */
  batchCalls: (chainId: number, delegate: `0x${string}`) => BatchCallChain | undefined;
}

/** The chain registry: how requests name a chain (EVM chain id, Solana network) to its RPC and assets. */
export function createChainRegistry(entries: ChainEntry[], options: { timeoutMs?: number } = {}): ChainRegistry {
  const evm = new Map<number, EvmGateway>();
  const solana = new Map<string, SolanaGateway>();
  const evmBalances = new Map<number, EvmBalanceReads>();
  const solanaBalances = new Map<string, SolanaBalanceReads>();
  const infos: ChainInfo[] = [];
  const evmRpcUrls = new Map<number, string>();
  const batchChains = new Map<string, BatchCallChain>();
  for (const entry of entries) {
    if (entry.type === 'EVM') {
      if (evm.has(entry.chainId)) throw new Error(`chain ${entry.chainId} is configured twice`);
      evm.set(entry.chainId, createEvmGateway({ chainId: entry.chainId, rpcUrl: entry.rpcUrl, timeoutMs: options.timeoutMs }));
      evmRpcUrls.set(entry.chainId, entry.rpcUrl);
      evmBalances.set(entry.chainId, createEvmBalanceReads({ chainId: entry.chainId, rpcUrl: entry.rpcUrl, timeoutMs: options.timeoutMs }));
      infos.push({
        type: 'EVM',
        chainId: String(entry.chainId),
        name: entry.name ?? `EVM chain ${entry.chainId}`,
        nativeCurrency: { symbol: entry.nativeSymbol ?? 'ETH', decimals: 18 },
        usdc: entry.usdcAddress ? { address: entry.usdcAddress, decimals: 6 } : null,
        isDevnet: entry.isDevnet ?? false,
      });
    } else {
      if (solana.has(entry.network)) throw new Error(`network ${entry.network} is configured twice`);
      solana.set(entry.network, createSolanaGateway({ network: entry.network, rpcUrl: entry.rpcUrl, timeoutMs: options.timeoutMs }));
      solanaBalances.set(entry.network, createSolanaBalanceReads({ network: entry.network, rpcUrl: entry.rpcUrl, timeoutMs: options.timeoutMs }));
      infos.push({
        type: 'SOLANA',
        network: entry.network,
        name: entry.name ?? `Solana ${entry.network}`,
        nativeCurrency: { symbol: 'SOL', decimals: 9 },
        usdc: entry.usdcMint ? { address: entry.usdcMint, decimals: 6 } : null,
        isDevnet: entry.isDevnet ?? entry.network !== 'SOLANA',
      });
    }
  }
  return {
    directory: { list: () => infos },
    gateways: { evm: (chainId) => evm.get(chainId), solana: (network) => solana.get(network) },
    balances: { evm: (chainId) => evmBalances.get(chainId), solana: (network) => solanaBalances.get(network) },
    sponsoredOperations: (config) => {
      const rpcUrl = evmRpcUrls.get(config.chainId);
      return rpcUrl === undefined ? undefined : createSponsoredOperationChain(rpcUrl, config);
    },
    batchCalls: (chainId, delegate) => {
      const rpcUrl = evmRpcUrls.get(chainId);
      if (rpcUrl === undefined) return undefined;
      const key = `${chainId}|${delegate.toLowerCase()}`;
      if (!batchChains.has(key)) batchChains.set(key, createBatchCallChain({ chainId, rpcUrl, delegate, timeoutMs: options.timeoutMs }));
      return batchChains.get(key);
    },
  };
}
