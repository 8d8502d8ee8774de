/**
 * Local mode only: the devnet's sponsorship stack for the service's own keys. EntryPoint v0.8,
 * Simple7702Account and a SingletonPaymasterV8 signed by the sponsor key are deployed once per chain
 * (recorded in the state directory, reused while the chain is the same), the paymaster's deposit
 * and the relayer's ETH are topped up when low. A restart on the same chain sends no transaction.
 */
import path from 'node:path';
import type { Address } from 'viem';
import { deploySponsorshipContracts, ensureSponsorshipContracts, topUpPaymasterDeposit, withAutomine, type SponsorshipDeployment } from '@wallet/chains/devnets';
import { paymasterDeposit } from '@wallet/chains/sponsorship';
import type { EvmGateway, LocalFaucet, LocalSponsorshipSetup } from '@wallet/domain';

/** What the start puts in (paymaster deposit, relayer ETH) when it finds less than LOW_WEI: 10 ETH each. */
export const LOCAL_SPONSORSHIP_TARGET_WEI = 10n * 10n ** 18n;
/** Below this (1 ETH) the start tops the deposit or the relayer up to the target; the status read flags the same. */
export const LOCAL_SPONSORSHIP_LOW_WEI = 10n ** 18n;

export interface LocalSponsorshipDevnet {
  rpcUrl: string;
  chainId: number;
  /** The devnet's TestUSDC: the sponsored token. */
  usdcAddress: Address;
  /** The devnet's yield contracts, which sponsored batches may call (approve, then supply or deposit). */
  contracts?: Address[];
  gateway: EvmGateway;
  faucet: LocalFaucet;
  /** Where the deployment is recorded (reused across restarts); without it, deployed each time. */
  stateDir?: string;
}

async function deployOrReuse(devnet: LocalSponsorshipDevnet, sponsorAddress: Address): Promise<{ deployment: SponsorshipDeployment; reused: boolean }> {
  const options = { chainId: devnet.chainId, sponsorAddress, depositWei: LOCAL_SPONSORSHIP_TARGET_WEI };
  if (devnet.stateDir) return ensureSponsorshipContracts(devnet.rpcUrl, path.join(devnet.stateDir, 'sponsorship-deployments.json'), options);
  return { deployment: await deploySponsorshipContracts(devnet.rpcUrl, options), reused: false };
}

/** The setup the service runs once its keys exist (`createServices` with `chains.sponsorship`). */
export function localSponsorshipSetup(devnet: LocalSponsorshipDevnet): LocalSponsorshipSetup {
  return async (keys) => {
    const [sponsor, relayer] = await Promise.all([keys.ensureServiceKey('sponsor', devnet.chainId), keys.ensureServiceKey('relayer', devnet.chainId)]);
    const { deployment, reused } = await deployOrReuse(devnet, sponsor.address as Address);
    // A fresh deployment was just given its deposit; a reused one may have been drawn down since.
    const [deposit, relayerBalance] = await Promise.all([
      reused ? paymasterDeposit(devnet.rpcUrl, deployment.entryPoint, deployment.paymaster) : LOCAL_SPONSORSHIP_TARGET_WEI,
      devnet.gateway.getBalance(relayer.address as Address),
    ]);
    const topUps: Array<() => Promise<unknown>> = [];
    if (deposit < LOCAL_SPONSORSHIP_LOW_WEI) topUps.push(() => topUpPaymasterDeposit(devnet.rpcUrl, deployment, LOCAL_SPONSORSHIP_TARGET_WEI - deposit));
    if (relayerBalance < LOCAL_SPONSORSHIP_LOW_WEI) {
      topUps.push(() => devnet.faucet.fund({ type: 'EVM', address: relayer.address }, 'native', LOCAL_SPONSORSHIP_TARGET_WEI - relayerBalance));
    }
    // Automine for these few transactions: the start does not wait for the next block.
    if (topUps.length > 0) await withAutomine(devnet.rpcUrl, () => Promise.all(topUps.map((topUp) => topUp())));
    return {
      chain: {
        chainId: devnet.chainId,
        entryPoint: deployment.entryPoint,
        delegate: deployment.delegate,
        paymaster: deployment.paymaster,
        tokens: [devnet.usdcAddress],
        contracts: devnet.contracts ?? [],
        submission: 'relayer',
        minDepositWei: LOCAL_SPONSORSHIP_LOW_WEI,
        minRelayerBalanceWei: LOCAL_SPONSORSHIP_LOW_WEI,
      },
      sponsor: deployment.sponsor,
      relayer: relayer.address,
    };
  };
}
