/**
 * The one signing choke point. Every signature of the service — the five REST sign routes,
 * transfers, `broadcast: true` and cancellations — is a `SigningIntent` passed to
 * `SigningPipeline.sign`, which runs, in this order:
 *
 * 1. policy: `PolicyEngine.evaluate` decides and, when allowed, reserves the intent's spend
 *    against the limits it read (one database statement); a denial is 403 `POLICY_DENIED` and
 *    nothing else happens; a request that needs approval (rule 4) goes to its approval case
 *    first (`ApprovalGate`), which answers 403/409 or claims the completed case, and is then
 *    decided again with the case's requirements granted;
 * 2. spend: the reservation is held while signing;
 * 3. sign: the key vault (the signer process) signs the payload the operation builds from the
 *    input, hashing it itself;
 * 4. audit: the audit row, the `transaction.signed` event and the reservation becoming spent, in
 *    one append (`sign`); for what the service records itself (`signAndRecord`), in the same
 *    statement as that record, so a killed process leaves all of them or none.
 *
 * A failure in 3 or 4 releases the reservation (and gives a claimed case back) and leaves no row.
 * Only this module asks the vault for a wallet signature (`signing-choke-point.test.ts`).
 */
import { ApiError } from '../errors.ts';
import type { EncryptedShare } from '../custody/types.ts';
import type { KeyVault } from '../custody/vault.ts';
import { transactionSignedEvent } from '../events/events.ts';
import type { AuditEntry, AuditStore, SignatureWrite, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import type { WalletType } from '../wallets/addresses.ts';
import { assertSignable, signOperation, type SignOperationName } from './signers.ts';

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
  /**
   * The call a raw signature authorizes, when the service knows it: a sponsored transfer's user
   * operation executes this ERC-20 `transfer` from the wallet. Policies then decide on (and meter)
   * the call as on a transaction with the same audit action, instead of on an opaque hash.
   */
  executes?: { to: string; value: string; data: string; chainId: number };
  /**
   * The calls a batch transaction (or operation) executes through the wallet's delegation, in
   * order (calls/): policies judge each as a transaction of the wallet to its target, allow the
   * batch only if every call is allowed, and meter the batch's spend once (policies/batch.ts).
   */
  calls?: { to: string; value: string; data: string }[];
  /**
   * A signature the service initiates itself, outside any partner request. `nonce-gap-filler`: a
   * zero-value self-transfer at a nonce no record can fill (transactions/nonce-gaps.ts), the
   * documented exception to policies: no policy decision and no spend, still audited with its event.
   */
  serviceInitiated?: 'nonce-gap-filler';
  /**
   * A fee replacement of the record with this id (transactions/attempts.ts): the same nonce, call
   * and value as the record's first attempt, with higher fees (or a sponsored record's replacement
   * user operation: the same EntryPoint nonce and call, a raw signature with `executes`; or a Solana
   * transfer rebuilt on a fresh blockhash), signed by the monitor for the
   * record's project, API key and environment. The policies decide again on the same intent, but
   * its spend was charged when the first attempt was signed: the decision reads the meters without
   * this intent's charge and reserves nothing (`PolicyEngine.evaluate`'s `uncharged`). No approval
   * case opens for it: a rule that asks for one denies the replacement. Audited with its event.
   */
  feeReplacementOf?: string;
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

/** A require_approval rule's requirement, as cases and dry runs name it. */
export interface ApprovalRequirementRef {
  policyId: string;
  policyVersion: string;
  ruleId: string;
  requirementId: string;
}

/** A matched requirement with what a case snapshots when it opens. */
export interface ApprovalRequirementMatch extends ApprovalRequirementRef {
  stages: { id: string; roles: string[]; attributes: Record<string, string[]>; requiredApprovals: number }[];
  expiresInMs: number;
}

export type PolicyDecision =
  | { outcome: 'allow'; reservation?: SpendReservation }
  | { outcome: 'deny'; message?: string; deniedBy: PolicyDenial[] }
  /** No rule denies, but require_approval rules matched (and are not `granted`): nothing was reserved. */
  | { outcome: 'review'; approvals: ApprovalRequirementMatch[] };

/**
 * Decides whether an intent may be signed, before anything is signed; an allowed intent's spend
 * is reserved in the same decision (so concurrent intents cannot both fit under one limit).
 * `granted`: requirements a claimed approval case covers (they no longer pause the request).
 */
export interface PolicyEngine {
  /**
   * `uncharged`: the intent's spend is already counted in the meters (a fee replacement, see
   * `SigningIntent.feeReplacementOf`): decide on the meters without its charge, reserve nothing.
   */
  evaluate(intent: SigningContext, options?: { granted?: ApprovalRequirementRef[]; uncharged?: boolean }): Promise<PolicyDecision>;
}

/** A completed approval case claimed for this signature (it is `consumed` until released). */
export interface ApprovalClaim {
  caseId: string;
  requirements: ApprovalRequirementRef[];
  /** Puts the case back to `completed`: only when no signature will exist. */
  release(): Promise<void>;
}

/**
 * Guardrail rule 4: finds or opens the request's approval case. Throws 403 FORBIDDEN (wallet not
 * bound to a scope), 403 POLICY_REVIEW_REQUIRED (opened or still pending), 403 POLICY_DENIED
 * (rejected, expired, invalidated, cancelled) or 409 CONFLICT (same key, other request); claims
 * a completed case atomically and returns the claim.
 */
export interface ApprovalGate {
  admit(intent: SigningContext, approvals: ApprovalRequirementMatch[]): Promise<ApprovalClaim>;
}

/** Without policies: every intent is allowed and nothing is reserved. */
export const allowAllPolicies: PolicyEngine = {
  evaluate: async () => ({ outcome: 'allow' }),
};

/** 403 POLICY_DENIED with `deniedBy` (spec: guardrail enforcement on signing routes). */
export function policyDenied(deniedBy: PolicyDenial[], message = 'The request was denied by a policy'): ApiError {
  const error = new ApiError(403, 'POLICY_DENIED', message, { reason: deniedBy[0]?.reason ?? 'denied', deniedBy });
  error.decidingRules = deniedBy.flatMap((d) => (d.policyId !== undefined ? [{ policyId: d.policyId, policyVersion: d.policyVersion ?? '', ruleId: d.ruleId ?? null }] : []));
  return error;
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
  /** Where the wallet's key signs: the signer process (the API holds no key). */
  vault: Pick<KeyVault, 'sign'>;
  clock: Clock;
  policy?: PolicyEngine;
  /** Conditional approval cases; absent: a request that needs approval is denied (`approval-not-available`). */
  approvals?: ApprovalGate;
}

const noReservation: SpendReservation = { id: null, release: async () => undefined };

export function createSigningPipeline({ audit, vault, clock, policy = allowAllPolicies, approvals }: SigningPipelineDeps) {
  /**
   * The policy decision and, for a request that needs approval, its case: a completed case is
   * claimed (consumed) before the spend is reserved, and given back if that decision denies.
   */
  async function decide(context: SigningContext): Promise<{ reservation: SpendReservation; claim: ApprovalClaim | null }> {
    let decision = await policy.evaluate(context);
    let claim: ApprovalClaim | null = null;
    if (decision.outcome === 'review') {
      const needed = decision.approvals;
      if (!approvals) {
        const deniedBy = needed.map((a) => ({ reason: 'approval-not-available', policyId: a.policyId, policyVersion: a.policyVersion, ruleId: a.ruleId }));
        throw policyDenied(deniedBy, 'Conditional approvals are not available in this deployment');
      }
      claim = await approvals.admit(context, needed);
      try {
        decision = await policy.evaluate(context, { granted: claim.requirements });
      } catch (error) {
        await claim.release().catch(() => undefined);
        throw error;
      }
    }
    if (decision.outcome !== 'allow') {
      await claim?.release().catch(() => undefined);
      // A requirement the claimed case does not cover appeared meanwhile (policies changed): resend.
      if (decision.outcome === 'review') {
        const changed = new ApiError(409, 'CONFLICT', 'The policies changed while this request was being signed; send it again');
        changed.releasesIdempotencyKey = true;
        throw changed;
      }
      throw policyDenied(decision.deniedBy, decision.message);
    }
    return { reservation: decision.reservation ?? noReservation, claim };
  }

  /** A fee replacement: decided again without a charge; a review or denial refuses it (nothing reserved, no case). */
  async function decideReplacement(context: SigningContext): Promise<{ reservation: SpendReservation; claim: null }> {
    // A sponsored operation's replacement is a raw signature whose executed call is known (`executes`); a Solana rebuild is a transaction.
    const replaceable = context.operation === 'transaction' || (context.operation === 'raw' && (context.executes !== undefined || context.calls !== undefined));
    if ((context.wallet.type !== 'EVM' && context.operation !== 'transaction') || !replaceable) {
      throw new Error('a fee replacement is an EVM transaction, a sponsored operation or a rebuilt Solana transaction');
    }
    const decision = await policy.evaluate(context, { uncharged: true });
    if (decision.outcome === 'deny') throw policyDenied(decision.deniedBy, decision.message);
    if (decision.outcome === 'review') {
      const deniedBy = decision.approvals.map((a) => ({ reason: 'approval-required', policyId: a.policyId, policyVersion: a.policyVersion, ruleId: a.ruleId }));
      throw policyDenied(deniedBy, 'A policy asks for an approval, which a fee replacement cannot open');
    }
    return { reservation: noReservation, claim: null };
  }

  /**
   * Decides, signs, and hands the signature's audit row, event and spend to `commit`. A failure of
   * the vault or of `commit`, or a commit that wrote nothing (null), releases the reservation and
   * gives a claimed case back.
   */
  async function signThen<R>(intent: SigningIntent, commit: (result: SignatureResult, signature: SignatureWrite) => Promise<R | null>): Promise<{ result: SignatureResult; recorded: R } | null> {
    const { shares, ...context } = intent;
    const { caller, wallet } = intent;
    assertSignable(wallet);
    // A "no" cell of the capability matrix is refused before any policy runs.
    signOperation(wallet.type, intent.operation);
    const { reservation, claim } = intent.serviceInitiated
      ? exemptGapFiller(intent)
      : intent.feeReplacementOf
        ? await decideReplacement(context)
        : await decide(context);
    const giveBack = async () => {
      // The caller must see why signing failed; a failed release is the spend store's to report.
      await reservation.release().catch(() => undefined);
      await claim?.release().catch(() => undefined);
    };
    try {
      const { id, type, scheme, address, publicKey } = wallet;
      const result = await vault.sign({ wallet: { id, type, scheme, address, publicKey }, shares, operation: intent.operation, input: intent.input, requestId: caller.requestId, action: intent.action });
      const signature: SignatureWrite = {
        audit: signatureAudit(caller, wallet, shares, intent.action, result.digest, result.chainId),
        events: [transactionSignedEvent(caller.projectId, wallet, result.chainId, clock.now())],
        spentReservationId: reservation.id,
      };
      const recorded = await commit(result, signature);
      if (recorded === null) {
        await giveBack();
        return null;
      }
      return { result, recorded };
    } catch (error) {
      await giveBack();
      throw error;
    }
  }

  return {
    /**
     * The policy decision alone, before a request signs anything it needs first (a batch's
     * delegation): a denial throws as signing would; nothing stays reserved. The signature is
     * decided again when it is made.
     */
    async precheck(context: SigningContext): Promise<void> {
      const decision = await policy.evaluate(context);
      if (decision.outcome === 'allow') await decision.reservation?.release();
      if (decision.outcome === 'deny') throw policyDenied(decision.deniedBy, decision.message);
    },

    /** A signature on its own (the REST sign routes): its audit row, event and spend in one append. */
    async sign(intent: SigningIntent): Promise<SignatureResult> {
      const signed = await signThen(intent, async (_result, { audit: entry, events, spentReservationId }) => {
        await audit.append(entry, events, spentReservationId);
        return true;
      });
      return signed!.result;
    },

    /**
     * A signature the service records itself (transfers, sponsored operations, yield steps, fee
     * replacements, cancellations, gap fillers): `record` writes what was signed and, in the same
     * statement, the `SignatureWrite` it is given (the audit row, the `transaction.signed` event and
     * the spend becoming spent), so a process that dies before that commit leaves none of them.
     * `record` answers null when it wrote nothing (e.g. a lease lost meanwhile): then neither does
     * the signature exist in the database, and the spend is released; so it is when `record` throws.
     */
    signAndRecord<R>(intent: SigningIntent, record: (result: SignatureResult, signature: SignatureWrite) => Promise<R | null>): Promise<{ result: SignatureResult; recorded: R } | null> {
      return signThen(intent, record);
    },
  };
}

export type SigningPipeline = ReturnType<typeof createSigningPipeline>;

/** The policy exception of a gap filler holds only for what a filler is: a zero-value EVM transaction to the wallet itself, without calldata. */
function exemptGapFiller(intent: SigningIntent): { reservation: SpendReservation; claim: null } {
  const tx = intent.input.transaction as { to?: string; value?: string; data?: string } | undefined;
  const selfTransfer =
    intent.wallet.type === 'EVM' &&
    intent.operation === 'transaction' &&
    intent.transfer !== null &&
    intent.transfer.to.toLowerCase() === intent.wallet.address.toLowerCase() &&
    intent.transfer.value === '0' &&
    intent.transfer.tokenAddress === null &&
    tx?.to?.toLowerCase() === intent.wallet.address.toLowerCase() &&
    BigInt(tx.value ?? '0') === 0n &&
    (tx.data === undefined || tx.data === '0x');
  if (!selfTransfer) throw new Error('a nonce gap filler is a zero-value self-transfer without calldata');
  return { reservation: noReservation, claim: null };
}

/** The audit row of one signature: what was signed (digest), never key material. */
function signatureAudit(caller: Caller, wallet: WalletRecord, shares: EncryptedShare[], action: string, digest: string, chainId: string | null): AuditEntry {
  return {
    projectId: caller.projectId,
    // Service-initiated signatures without a key to name ('') have none.
    apiKeyId: caller.apiKeyId || null,
    walletId: wallet.id,
    requestId: caller.requestId,
    action,
    // The KEKs of the two shares that signed (XOR halves, or FROST participants 1 and 2), not the recovery key's.
    details: { digest, chainId, kekIds: shares.filter((s) => !s.role.startsWith('recovery-')).map((s) => s.kekId).sort() },
  };
}
