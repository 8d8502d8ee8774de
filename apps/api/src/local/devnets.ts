import { createChainRegistry, type ChainEntry } from '@wallet/chains';
import { deployTestUsdc, fundEvmWallet, startAnvil, startSolanaDevnet } from '@wallet/chains/devnets';
import type { ChainDirectory, ChainGateways, LocalFaucet } from '@wallet/domain';

/** The EVM devnet answers as Base Sepolia, where the spec's local-test yield markets live. */
export const LOCAL_EVM_CHAIN_ID = 84532;

export interface LocalDevnets {
  directory: ChainDirectory;
  gateways: ChainGateways;
  faucet: LocalFaucet;
  evmRpcUrl: string;
  solanaRpcUrl: string;
  stop(): Promise<void>;
}

/**
 * Local mode: anvil (EVM, chain id 84532) and our LiteSVM JSON-RPC server (SOLANA_DEVNET), each
 * with a test USDC, started with the service and stopped with it.
 */
export async function startLocalDevnets(
  options: { blockTimeSeconds?: number; slotMs?: number; otherChains?: ChainEntry[] } = {},
): Promise<LocalDevnets> {
  const anvil = await startAnvil({ chainId: LOCAL_EVM_CHAIN_ID, blockTimeSeconds: options.blockTimeSeconds ?? 1 });
  let solana: Awaited<ReturnType<typeof startSolanaDevnet>> | undefined;
  try {
    const usdcAddress = await deployTestUsdc(anvil.rpcUrl, LOCAL_EVM_CHAIN_ID);
    solana = await startSolanaDevnet({ slotMs: options.slotMs ?? 400 });
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
    return {
      ...registry,
      faucet,
      evmRpcUrl: anvil.rpcUrl,
      solanaRpcUrl: sol.rpcUrl,
      async stop() {
        await Promise.all([anvil.stop(), sol.stop()]);
      },
    };
  } catch (error) {
    await Promise.all([anvil.stop(), solana?.stop()]);
    throw error;
  }
}
