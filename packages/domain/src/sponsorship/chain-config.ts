/**
 * Where sponsored transfers run: one entry per EVM chain (the SPONSORSHIP variable, and in local
 * mode the devnet's entry the service adds at start). No viem here: configuration parsing stays light.
 */
import { z } from 'zod';
import { evmContractAddressSchema } from '../shared/evm-contract-address.ts';

/** EntryPoint v0.8 at its canonical address (the same on every chain). */
export const CANONICAL_ENTRY_POINT_V08 = '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108';
/** Simple7702Account v0.8 at its canonical address: the delegate of sponsored wallets. */
export const CANONICAL_SIMPLE_7702_ACCOUNT = '0xe6Cae83BdE06E4c305530e199D7217f42808555B';
/** Below this paymaster deposit at the EntryPoint the status read flags `lowDeposit` (default 0.05 ETH). */
export const DEFAULT_MIN_DEPOSIT_WEI = 5n * 10n ** 16n;
/** Below this native balance of the relayer the status read flags `lowRelayerBalance` (default 0.01 ETH). */
export const DEFAULT_MIN_RELAYER_BALANCE_WEI = 10n ** 16n;

export const SPONSORSHIP_SUBMISSIONS = ['relayer', 'bundler'] as const;
export type SponsorshipSubmission = (typeof SPONSORSHIP_SUBMISSIONS)[number];

type Address = `0x${string}`;

/** One chain's sponsorship, as the service uses it (addresses checksummed). */
export interface SponsorshipChainConfig {
  chainId: number;
  entryPoint: Address;
  /** The contract sponsored wallets delegate to (EIP-7702). */
  delegate: Address;
  /** The verifying paymaster whose signer is the service's sponsor key on this chain. */
  paymaster: Address;
  /** ERC-20 tokens whose transfers are sponsored (and which sponsored batches may call). */
  tokens: Address[];
  /** Contracts besides the tokens that sponsored batches may call (default none). */
  contracts?: Address[];
  /** `relayer`: the service sends EntryPoint.handleOps from its relayer key; `bundler`: an ERC-4337 bundler at `bundlerUrl`. */
  submission: SponsorshipSubmission;
  bundlerUrl?: string;
  minDepositWei: bigint;
  minRelayerBalanceWei: bigint;
}

const MAX_UINT256 = (1n << 256n) - 1n;
const address = evmContractAddressSchema.transform((value) => value as Address);
const weiThreshold = z
  .string('must be an amount of wei as a decimal string')
  .regex(/^(0|[1-9]\d{0,77})$/, 'must be an amount of wei as a decimal string')
  .transform((value) => BigInt(value))
  .refine((value) => value <= MAX_UINT256, 'must be at most 2^256 - 1');

const entrySchema = z
  .strictObject({
    chainId: z.number('must be a positive integer chain id').int('must be a positive integer chain id').positive('must be a positive integer chain id'),
    entryPoint: address.default(CANONICAL_ENTRY_POINT_V08),
    delegate: address.default(CANONICAL_SIMPLE_7702_ACCOUNT),
    paymaster: address,
    tokens: z.array(address, 'must be an array of token addresses').min(1, 'must list at least one token'),
    contracts: z.array(address, 'must be an array of contract addresses').default([]),
    submission: z.enum(SPONSORSHIP_SUBMISSIONS, 'must be relayer or bundler').default('relayer'),
    bundlerUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).optional(),
    minDepositWei: weiThreshold.default(DEFAULT_MIN_DEPOSIT_WEI),
    minRelayerBalanceWei: weiThreshold.default(DEFAULT_MIN_RELAYER_BALANCE_WEI),
  })
  .superRefine((entry, ctx) => {
    if (entry.submission === 'bundler' && entry.bundlerUrl === undefined) {
      ctx.addIssue({ code: 'custom', path: ['bundlerUrl'], message: 'is required with submission bundler' });
    }
    if (entry.submission === 'relayer' && entry.bundlerUrl !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['bundlerUrl'], message: 'is only for submission bundler (relayer submits itself)' });
    }
    const seen = new Set<string>();
    entry.tokens.forEach((token, index) => {
      if (seen.has(token)) ctx.addIssue({ code: 'custom', path: ['tokens', index], message: `${token} is listed twice` });
      seen.add(token);
    });
    entry.contracts.forEach((contract, index) => {
      if (seen.has(contract)) ctx.addIssue({ code: 'custom', path: ['contracts', index], message: `${contract} is listed twice (or is a token)` });
      seen.add(contract);
    });
  });

/** The issue's message; a field left out is `is required` (zod's issues do not carry the input). */
function issueMessage(issue: z.core.$ZodIssue, entry: unknown): string {
  if (issue.code === 'unrecognized_keys') return `unknown field(s) ${issue.keys.join(', ')}`;
  const field = issue.path[0];
  const missing = issue.path.length === 1 && typeof entry === 'object' && entry !== null && !Object.hasOwn(entry, field as PropertyKey);
  if (issue.code === 'invalid_type' && missing) return 'is required';
  return issue.message;
}

/** The entries of SPONSORSHIP, each chain at most once. */
export const sponsorshipConfigSchema = z
  .array(z.unknown(), 'must be a JSON array of sponsorship chains')
  .transform((entries, ctx) => {
    const parsed: SponsorshipChainConfig[] = [];
    const chains = new Set<number>();
    entries.forEach((value, index) => {
      const result = entrySchema.safeParse(value);
      if (!result.success) {
        for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', path: [index, ...issue.path], message: issueMessage(issue, value) });
        return;
      }
      if (chains.has(result.data.chainId)) ctx.addIssue({ code: 'custom', path: [index, 'chainId'], message: `${result.data.chainId} is listed twice` });
      chains.add(result.data.chainId);
      parsed.push(result.data as SponsorshipChainConfig);
    });
    return parsed;
  });

/** Parses the text of SPONSORSHIP (JSON); the error names the path of the problem. */
export const sponsorshipJson = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a JSON array of sponsorship chains' });
      return z.NEVER;
    }
  })
  .pipe(sponsorshipConfigSchema);
