import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createChainRegistry, type ChainEntry, type ChainRegistry } from '@wallet/chains';
import {
  deployTestUsdc,
  deployYieldMarkets,
  ensureDeployed,
  ensureYieldMarkets,
  evmGenesisHash,
  fundEvmWallet,
  startAnvil,
  startSolanaDevnet,
  writeFileAtomic,
  type YieldDeployment,
} from '@wallet/chains/devnets';
import {
  resolveChainReset,
  type ChainDirectory,
  type ChainGateways,
  type ChainResetStore,
  type Clock,
  type LocalDevnetEndpoints,
  type LocalFaucet,
  type LocalSponsorshipSetup,
  type ResetChain,
} from '@wallet/domain';
import { LOCAL_EVM_CHAIN_ID } from './chain-id.ts';
import { localSponsorshipSetup } from './sponsorship.ts';

export { LOCAL_EVM_CHAIN_ID };

/** A devnet chain and the genesis hash it answers now. */
export interface DevnetIdentity extends ResetChain {
  genesisHash: string;
}

export interface DevnetReset extends DevnetIdentity {
  previousGenesisHash: string | null;
  failed: string[];
  nonceRows: number;
}

export interface LocalDevnets {
  directory: ChainDirectory;
  gateways: ChainGateways;
  balances: ChainRegistry['balances'];
  sponsoredOperations: ChainRegistry['sponsoredOperations'];
  batchCalls: ChainRegistry['batchCalls'];
  faucet: LocalFaucet;
  evmRpcUrl: string;
  solanaRpcUrl: string;
  /** The devnets' JSON-RPC URLs as `GET /v1/local/devnets` answers them and `npm start` prints them. */
  endpoints: LocalDevnetEndpoints;
  identities: DevnetIdentity[];
  /** With `dataDir`: where the devnets keep their state. */
  stateDir?: string;
  /** State files that could not be read and were moved aside (those chains started fresh). */
  discardedState: string[];
  /**
   * With `yieldMarkets`: the real Aave V3 pool and MetaMorpho vault stack on the EVM devnet, over
   * its test USDC (docs/local-chains.md: "Yield contracts on the local devnet").
   */
  yield?: YieldDeployment;
  /**
   * With `sponsorship`: deploys (or reuses) the sponsorship contracts for the service's sponsor key
   * and funds its relayer; the service runs it once its keys exist (local/sponsorship.ts).
   */
  sponsorship?: LocalSponsorshipSetup;
  /**
   * With `dataDir`: for each devnet whose genesis hash is not the one recorded in the state
   * directory (it started fresh, or nothing was recorded yet), fails its unresolved records with
   * `CHAIN_RESET` and resets its nonces; then records the current genesis hashes.
   */
  reconcile(deps: { store: ChainResetStore; clock: Clock }): Promise<DevnetReset[]>;
  stop(): Promise<void>;
}

const GENESIS_FILE = 'genesis.json';
const key = (c: ResetChain) => `${c.walletType}:${c.chain}`;

function readRecorded(file: string): Record<string, string> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

export interface LocalDevnetsOptions {
  /** EVM interval mining; default 1. With `yieldMarkets` it must be a whole number of seconds. */
  blockTimeSeconds?: number;
  slotMs?: number;
  otherChains?: ChainEntry[];
  dataDir?: string;
  /** Also deploy the yield contracts on the EVM devnet (about 1 s; reused after a restart). Default false. */
  yieldMarkets?: boolean;
  /**
   * Also set up gas sponsorship on the EVM devnet when the service starts (its contracts for the
   * service's sponsor key, a funded relayer), so that sponsored transfers can run. Needs
   * whole-second blocks (the deployment switches automine on and back). Default false.
   */
  sponsorship?: boolean;
}

/**
 * Local mode: anvil (EVM, chain id 84532) and our LiteSVM JSON-RPC server (SOLANA_DEVNET), each
 * with a test USDC, started with the service and stopped with it. With `dataDir` their state lives
 * in `dataDir/devnets` and survives restarts (docs/local-chains.md).
 */
export async function startLocalDevnets(options: LocalDevnetsOptions = {}): Promise<LocalDevnets> {
  const stateDir = options.dataDir ? path.join(options.dataDir, 'devnets') : undefined;
  if (stateDir) mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  const anvil = await startAnvil({
    chainId: LOCAL_EVM_CHAIN_ID,
    blockTimeSeconds: options.blockTimeSeconds ?? 1,
    ...(stateDir ? { statePath: path.join(stateDir, 'anvil-state.json') } : {}),
  });
  let solana: Awaited<ReturnType<typeof startSolanaDevnet>> | undefined;
  try {
    const deployUsdc = () => deployTestUsdc(anvil.rpcUrl, LOCAL_EVM_CHAIN_ID);
    const [usdcAddress, evmGenesis] = await Promise.all([
      stateDir ? ensureDeployed(anvil.rpcUrl, path.join(stateDir, 'evm-deployments.json'), 'TestUSDC', deployUsdc).then((d) => d.address) : deployUsdc(),
      evmGenesisHash(anvil.rpcUrl),
    ]);
    // The yield deployment (EVM, ~1 s) overlaps the Solana devnet's start.
    const deployYield = async (): Promise<YieldDeployment | undefined> => {
      if (!options.yieldMarkets) return undefined;
      const opts = { usdc: usdcAddress, chainId: LOCAL_EVM_CHAIN_ID };
      if (!stateDir) return deployYieldMarkets(anvil.rpcUrl, opts);
      return (await ensureYieldMarkets(anvil.rpcUrl, path.join(stateDir, 'yield-deployments.json'), opts)).deployment;
    };
    const [solanaStarted, yieldDeployed] = await Promise.allSettled([
      startSolanaDevnet({ slotMs: options.slotMs ?? 400, ...(stateDir ? { statePath: path.join(stateDir, 'solana-state.bin') } : {}) }),
      deployYield(),
    ]);
    if (solanaStarted.status === 'fulfilled') solana = solanaStarted.value;
    else throw solanaStarted.reason;
    if (yieldDeployed.status === 'rejected') throw yieldDeployed.reason;
    const yieldDeployment = yieldDeployed.value;
    const registry = createChainRegistry([
      {
        type: 'EVM',
        chainId: LOCAL_EVM_CHAIN_ID,
        rpcUrl: anvil.rpcUrl,
        name: 'Local EVM devnet (Base Sepolia chain id)',
        nativeSymbol: 'ETH',
        usdcAddress,
        isDevnet: true,
      },
      { type: 'SOLANA', network: 'SOLANA_DEVNET', rpcUrl: solana.rpcUrl, name: 'Local Solana devnet (LiteSVM)', usdcMint: solana.usdcMint, isDevnet: true },
      ...(options.otherChains ?? []),
    ]);
    const sol = solana;
    const faucet: LocalFaucet = {
      async fund(target, asset, baseUnits) {
        if (target.type === 'EVM') {
          const sent = await fundEvmWallet({
            rpcUrl: anvil.rpcUrl,
            chainId: LOCAL_EVM_CHAIN_ID,
            usdcAddress,
            to: target.address as `0x${string}`,
            ...(asset === 'native' ? { nativeWei: baseUnits } : { usdcBaseUnits: baseUnits }),
          });
          return { txHash: (sent.nativeTxHash ?? sent.usdcTxHash)! };
        }
        const { signatures } = await sol.fundWallet({
          to: target.address,
          ...(asset === 'native' ? { lamports: baseUnits } : { lamports: 0n, usdcBaseUnits: baseUnits }),
        });
        return { txHash: signatures.at(-1)! };
      },
    };
    const identities: DevnetIdentity[] = [
      { walletType: 'EVM', chain: String(LOCAL_EVM_CHAIN_ID), isDevnet: true, genesisHash: evmGenesis },
      { walletType: 'SOLANA', chain: 'SOLANA_DEVNET', isDevnet: true, genesisHash: sol.genesisHash },
    ];
    return {
      ...registry,
      faucet,
      evmRpcUrl: anvil.rpcUrl,
      solanaRpcUrl: sol.rpcUrl,
      endpoints: { evm: [{ chainId: LOCAL_EVM_CHAIN_ID, rpcUrl: anvil.rpcUrl }], solana: [{ network: 'SOLANA_DEVNET', rpcUrl: sol.rpcUrl }] },
      identities,
      ...(stateDir ? { stateDir } : {}),
      discardedState: [anvil.discardedState, sol.discardedState].filter((f): f is string => f !== undefined),
      ...(yieldDeployment ? { yield: yieldDeployment } : {}),
      ...(options.sponsorship
        ? {
            sponsorship: localSponsorshipSetup({
              rpcUrl: anvil.rpcUrl,
              chainId: LOCAL_EVM_CHAIN_ID,
              usdcAddress,
              ...(yieldDeployment ? { contracts: [yieldDeployment.pool.poolAddress, yieldDeployment.vault.vault, yieldDeployment.vault.bundler] } : {}),
              gateway: registry.gateways.evm(LOCAL_EVM_CHAIN_ID)!,
              faucet,
              ...(stateDir ? { stateDir } : {}),
            }),
          }
        : {}),
      async reconcile(deps) {
        if (!stateDir) return [];
        const file = path.join(stateDir, GENESIS_FILE);
        const recorded = readRecorded(file);
        const resets: DevnetReset[] = [];
        for (const identity of identities) {
          const previous = recorded[key(identity)] ?? null;
          if (previous === identity.genesisHash) continue;
          resets.push({ ...identity, previousGenesisHash: previous, ...(await resolveChainReset(deps, identity)) });
        }
        // Recorded only after the records are resolved: a crash in between resolves them on the next start.
        writeFileAtomic(file, `${JSON.stringify(Object.fromEntries(identities.map((i) => [key(i), i.genesisHash])), null, 2)}\n`);
        return resets;
      },
      async stop() {
        await Promise.all([anvil.stop(), sol.stop()]);
      },
    };
  } catch (error) {
    await Promise.all([anvil.stop(), solana?.stop()]);
    throw error;
  }
}
