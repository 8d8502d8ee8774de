/**
 * The one signing choke point. Every signature of the service — the five REST sign routes,
 * transfers, `broadcast: true` and cancellations — is a `SigningIntent` passed to
 * `SigningPipeline.sign`, which runs, in this order:
 *
 * 1. policy: `PolicyEngine.evaluate` decides and, when allowed, reserves the intent's spend
 *    against the limits it read (one database statement); a denial is 403 `POLICY_DENIED` and
 *    nothing else happens;
 * 2. spend: the reservation is held while signing;
 * 3. sign: the wallet key is joined in memory, used once and wiped;
 * 4. audit: the audit row, the `transaction.signed` event and the reservation becoming spent, in
 *    one append.
 *
 * A failure in 3 or 4 releases the reservation and leaves no row.
 * `signWithWallet` is private to this module: nothing else can reach a wallet key.
 */
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import { publicKeyFromSecret } from '../custody/keys.ts';
import { withWalletSecretAsync, type EncryptedShare, type KekProvider } from '../custody/shares.ts';
import { transactionSignedEvent } from '../events/events.ts';
import type { AuditEntry, AuditStore, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import type { WalletType } from '../wallets/addresses.ts';
import { assertSignable, signOperation, type SignOperationName } from './signers.ts';
import type { SignOperation } from './types.ts';

/** The chain a signature is for, as far as the request names it. */
export interface SigningChain {
  walletType: WalletType;
  /** EVM chain id as a decimal string (transaction, authorization, typed-data domain). */
  chainId: string | null;
  /** Solana network, Stellar network passphrase. */
  network: string | null;
}

/** Value leaving the wallet, decoded from the request. */
export interface SigningTransfer {
  to: string;
  /** In base units (wei, lamports, token base units). */
  value: string;
  /** Token contract or mint; null for the native currency. */
  tokenAddress: string | null;
}

/** What is about to be signed, for whom, on which chain. */
export interface SigningIntent {
  caller: Caller;
  wallet: WalletRecord;
  shares: EncryptedShare[];
  operation: SignOperationName;
  /** The audit action, e.g. `wallet.sign.transfer`. */
  action: string;
  chain: SigningChain;
  /**
   * Destination, amount and asset where the request carries them (transfers; EVM
   * sign-transaction: `to`/`value`; cancellations: the wallet itself and 0); null otherwise.
   */
  transfer: SigningTransfer | null;
  /** The operation's body, parsed by its schema (`parseSigningInput`). */
  input: Record<string, unknown>;
}

/** The intent as the policy and spend ports see it: everything but the encrypted shares. */
export type SigningContext = Omit<SigningIntent, 'shares'>;

export interface PolicyDenial {
  reason: string;
  policyId?: string;
  policyVersion?: string;
  ruleId?: string;
}

/**
 * Spend held for one intent: it becomes spent with the audit row of the signature (the audit
 * append settles `id`), and is released only if no signature will ever exist.
 */
export interface SpendReservation {
  /** The stored reservation the audit append settles; null when nothing is held. */
  id: string | null;
  release(): Promise<void>;
}

export type PolicyDecision = { outcome: 'allow'; reservation?: SpendReservation } | { outcome: 'deny'; message?: string; deniedBy: PolicyDenial[] };

/**
 * Decides whether an intent may be signed, before anything is signed; an allowed intent's spend
 * is reserved in the same decision (so concurrent intents cannot both fit under one limit).
 */
export interface PolicyEngine {
  evaluate(intent: SigningContext): Promise<PolicyDecision>;
}

/** Without policies: every intent is allowed and nothing is reserved. */
export const allowAllPolicies: PolicyEngine = {
  evaluate: async () => ({ outcome: 'allow' }),
};

/** The body of a denial, for the OpenAPI document. */
export const policyDeniedBody = z
  .object({
    code: z.literal('POLICY_DENIED'),
    message: z.string(),
    reason: z.string().describe('The first entry\'s reason: rule-matched, spend-limit-exceeded, condition-undecidable, raw-signature-not-allowed'),
    deniedBy: z
      .array(z.object({ reason: z.string(), policyId: z.string().optional(), policyVersion: z.string().optional(), ruleId: z.string().optional() }))
      .describe('Every deciding rule'),
  })
  .meta({ id: 'PolicyDenied' });

/** Every route that signs answers a denial (or an invalid key) with 403. */
export const policyDeniedResponse = {
  description: 'FORBIDDEN (invalid API key), or POLICY_DENIED: a policy refused the signature (deniedBy says why); nothing was signed, recorded or sent',
  schema: policyDeniedBody,
};

/** 403 POLICY_DENIED with `deniedBy` (spec: guardrail enforcement on signing routes). */
export function policyDenied(deniedBy: PolicyDenial[], message = 'The request was denied by a policy'): ApiError {
  return new ApiError(403, 'POLICY_DENIED', message, { reason: deniedBy[0]?.reason ?? 'denied', deniedBy });
}

export interface SignatureResult {
  response: Record<string, unknown>;
  /** Hex SHA-256 of what was signed (in the audit row). */
  digest: string;
  chainId: string | null;
}

/** Parses a signing body with the schema of the wallet type's operation (400 on a "no" cell or bad input). */
export function parseSigningInput(type: WalletType, operation: SignOperationName, body: unknown): Record<string, unknown> {
  return parseInput(signOperation(type, operation).body, body) as Record<string, unknown>;
}

export interface SigningPipelineDeps {
  audit: AuditStore;
  keks: KekProvider;
  clock: Clock;
  policy?: PolicyEngine;
}

const noReservation: SpendReservation = { id: null, release: async () => undefined };

export function createSigningPipeline({ audit, keks, clock, policy = allowAllPolicies }: SigningPipelineDeps) {
  return {
    async sign(intent: SigningIntent): Promise<SignatureResult> {
      const { shares, ...context } = intent;
      const { caller, wallet } = intent;
      assertSignable(wallet);
      const op = signOperation(wallet.type, intent.operation);
      const decision = await policy.evaluate(context);
      if (decision.outcome !== 'allow') throw policyDenied(decision.deniedBy, decision.message);
      const reservation = decision.reservation ?? noReservation;
      let result: SignatureResult;
      try {
        const signed = await signWithWallet(keks, wallet, shares, op, intent.input);
        result = { ...signed, chainId: signed.chainId ?? null };
        await audit.append(
          signatureAudit(caller, wallet, shares, intent.action, result.digest, result.chainId),
          [transactionSignedEvent(caller.projectId, wallet, result.chainId, clock.now())],
          reservation.id,
        );
      } catch (error) {
        // The caller must see why signing failed; a failed release is the spend store's to report.
        await reservation.release().catch(() => undefined);
        throw error;
      }
      return result;
    },
  };
}

export type SigningPipeline = ReturnType<typeof createSigningPipeline>;

/** Joins the wallet key in memory, runs one signing operation, wipes the key. */
function signWithWallet(keks: KekProvider, wallet: WalletRecord, shares: EncryptedShare[], op: SignOperation, input: unknown): ReturnType<SignOperation['sign']> {
  return withWalletSecretAsync(keks, wallet.id, shares, (secret) => {
    let publicKey: Uint8Array | undefined;
    // Derived only by the signers that need it (secp256k1 derivation costs as much as a signature).
    const key = {
      secret,
      address: wallet.address,
      get publicKey() {
        return (publicKey ??= publicKeyFromSecret(wallet.scheme, secret));
      },
    };
    return op.sign(key, input);
  });
}

/** The audit row of one signature: what was signed (digest), never key material. */
function signatureAudit(caller: Caller, wallet: WalletRecord, shares: EncryptedShare[], action: string, digest: string, chainId: string | null): AuditEntry {
  return {
    projectId: caller.projectId,
    apiKeyId: caller.apiKeyId,
    walletId: wallet.id,
    requestId: caller.requestId,
    action,
    details: { digest, chainId, kekIds: shares.map((s) => s.kekId).sort() },
  };
}
