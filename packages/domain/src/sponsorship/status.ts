/**
 * What sponsored transfers draw on, per sponsorship chain: the paymaster's deposit at the
 * EntryPoint (every operation's gas is taken from it) and, with relayer submission, the relayer's
 * native balance (it pays each handleOps transaction up front). Read through the chain gateways;
 * a chain whose RPC does not answer is `unavailable`, the others are still read.
 */
import type { ChainGateways, Hex } from '../transactions/gateways.ts';
import { ChainUnavailableError } from '../transactions/gateways.ts';
import type { SponsorshipChainConfig, SponsorshipSubmission } from './chain-config.ts';

interface ChainStatusBase {
  chainId: number;
  entryPoint: string;
  paymaster: string;
  submission: SponsorshipSubmission;
  /** The service's relayer key on this chain (null with bundler submission): fund this address. */
  relayerAddress: string | null;
  /** The thresholds below which the amounts are flagged (decimal wei). */
  minDepositWei: string;
  minRelayerBalanceWei: string;
}

export type SponsorshipChainStatus =
  | (ChainStatusBase & {
      status: 'ok';
      /** The paymaster's deposit at the EntryPoint (decimal wei). */
      paymasterDepositWei: string;
      /** The relayer's native balance (decimal wei); null with bundler submission. */
      relayerBalanceWei: string | null;
      lowDeposit: boolean;
      /** Always false with bundler submission (the bundler pays, not a key of ours). */
      lowRelayerBalance: boolean;
    })
  | (ChainStatusBase & { status: 'unavailable'; reason: string });

export interface SponsorshipStatusDeps {
  /** The configured sponsorship chains (with the local devnet's in local mode). */
  chains: readonly SponsorshipChainConfig[];
  gateways: Pick<ChainGateways, 'evm'>;
  /** The relayer key's address on a chain (created on first use): `serviceKeys.ensureServiceKey('relayer', chainId)`. */
  relayerAddress(chainId: number): Promise<string>;
}

/** `balanceOf(address)` of the EntryPoint (its deposit ledger). */
const BALANCE_OF_SELECTOR = '0x70a08231';
const balanceOfCall = (account: string): Hex => `${BALANCE_OF_SELECTOR}${account.slice(2).toLowerCase().padStart(64, '0')}`;

/** Thrown inside one chain's read; becomes that chain's `unavailable` reason. */
class Unreadable extends Error {}

export function createSponsorshipStatus({ chains, gateways, relayerAddress }: SponsorshipStatusDeps) {
  async function readChain(chain: SponsorshipChainConfig): Promise<SponsorshipChainStatus> {
    const relayer = chain.submission === 'relayer' ? await relayerAddress(chain.chainId) : null;
    const base: ChainStatusBase = {
      chainId: chain.chainId,
      entryPoint: chain.entryPoint,
      paymaster: chain.paymaster,
      submission: chain.submission,
      relayerAddress: relayer,
      minDepositWei: chain.minDepositWei.toString(),
      minRelayerBalanceWei: chain.minRelayerBalanceWei.toString(),
    };
    try {
      const gateway = gateways.evm(chain.chainId);
      if (!gateway) throw new Unreadable(`no gateway for EVM chain ${chain.chainId}`);
      // The deposit is an eth_call (one batch at the latest block); the balance a plain read alongside it.
      const [snapshot, relayerBalance] = await Promise.all([
        gateway.callAtLatestBlock([{ to: chain.entryPoint as Hex, data: balanceOfCall(chain.paymaster) }]),
        relayer ? gateway.getBalance(relayer as Hex) : Promise.resolve(null),
      ]);
      const result = snapshot.results[0]!;
      if (!result.ok || !/^0x[0-9a-fA-F]{64}$/.test(result.data)) {
        throw new Unreadable(`the EntryPoint at ${chain.entryPoint} did not answer the paymaster's deposit (no EntryPoint there?)`);
      }
      const deposit = BigInt(result.data);
      return {
        ...base,
        status: 'ok',
        paymasterDepositWei: deposit.toString(),
        relayerBalanceWei: relayerBalance === null ? null : relayerBalance.toString(),
        lowDeposit: deposit < chain.minDepositWei,
        lowRelayerBalance: relayerBalance !== null && relayerBalance < chain.minRelayerBalanceWei,
      };
    } catch (error) {
      if (error instanceof Unreadable) return { ...base, status: 'unavailable', reason: error.message };
      // The gateway's message may name the RPC URL, which can hold a provider's key: not repeated here.
      if (error instanceof ChainUnavailableError) return { ...base, status: 'unavailable', reason: `the RPC of chain ${chain.chainId} did not answer` };
      throw error;
    }
  }

  return {
    /** Every sponsorship chain's deposit and relayer balance, flagged against its thresholds; chains are read in parallel. */
    async read(): Promise<{ chains: SponsorshipChainStatus[] }> {
      return { chains: await Promise.all(chains.map(readChain)) };
    },
  };
}

export type SponsorshipStatusService = ReturnType<typeof createSponsorshipStatus>;
