import type { WalletRecord } from '../ports.ts';
import { transferKind, type TransferInput } from '../transactions/schemas.ts';

/** A chain and the tokens whose transfers the deployment sponsors there (configuration). */
export interface SponsoredChainTokens {
  chainId: number;
  /** ERC-20 contract addresses, any case. */
  tokens: string[];
}

/** Fields that pin how the wallet's own transaction is built: a request with one keeps that path. */
const OVERRIDES = ['nonce', 'type', 'gasLimit', 'maxFeePerGas', 'maxPriorityFeePerGas', 'gasPrice'] as const;

export type SponsorshipEligibility = { eligible: true } | { eligible: false; reason: string };

/**
 * Whether a transfer the route accepted (its body valid for the wallet's type) is one the service
 * sponsors, before the project's settings are read: an ERC-20 transfer on a chain and token the
 * deployment sponsors, without overrides, from an API-created, unclaimed, ready wallet whose shares
 * the service holds. Everything else takes the wallet's own transaction, unchanged. `reason` says
 * why (logs and tests; partners see the record's `executionMode`).
 */
export function sponsorshipEligibility(wallet: WalletRecord, input: TransferInput, chains: readonly SponsoredChainTokens[]): SponsorshipEligibility {
  if (wallet.type !== 'EVM') return { eligible: false, reason: `${wallet.type} wallets send their own transactions` };
  if (transferKind('EVM', input) !== 'ERC20') return { eligible: false, reason: 'only ERC-20 transfers are sponsored' };
  const override = OVERRIDES.find((field) => input[field] !== undefined);
  if (override !== undefined) return { eligible: false, reason: `the request sets ${override}` };
  if (wallet.claimedAt !== null || wallet.custody !== 'api_key' || wallet.migratedAt !== null || wallet.status !== 'ready') {
    return { eligible: false, reason: 'only API-created, unclaimed, ready wallets are sponsored' };
  }
  const chain = chains.find((entry) => entry.chainId === input.chainId);
  if (!chain) return { eligible: false, reason: `chain ${input.chainId} has no sponsorship` };
  const token = input.tokenAddress!.toLowerCase();
  if (!chain.tokens.some((address) => address.toLowerCase() === token)) return { eligible: false, reason: `token ${input.tokenAddress} is not sponsored on chain ${input.chainId}` };
  return { eligible: true };
}

/**
 * The rule of sponsored transfers applied to a batch (`sponsored: true`): the service pays the gas
 * only of calls to what the deployment sponsors on the chain (its sponsored tokens, and the
 * contracts its entry lists), and none moves native value (sponsored transfers never do). Null
 * when every call is eligible, else why the first one is not.
 */
export function batchSponsorshipRefusal(calls: readonly { to: string; value: string }[], chain: { chainId: number; tokens: readonly string[]; contracts?: readonly string[] }): string | null {
  const allowed = new Set([...chain.tokens, ...(chain.contracts ?? [])].map((a) => a.toLowerCase()));
  for (const [index, call] of calls.entries()) {
    if (!allowed.has(call.to.toLowerCase())) return `call ${index} of the batch calls ${call.to}, which is not a token or contract sponsored on chain ${chain.chainId}`;
    if (call.value !== '0') return `call ${index} of the batch sends native value, which is never sponsored`;
  }
  return null;
}
