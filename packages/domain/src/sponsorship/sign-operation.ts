/**
 * Stage `accepted` → `signed`: one sponsored operation from the transfer's facts to its stored,
 * fully signed form. In order: simulate the transfer from the wallet (a failing one is never
 * sponsored), the wallet's EIP-7702 authorization when it is not delegated yet (through the signing
 * pipeline), the operation drafted at the node's fees, the gas cap and the daily budget, the
 * sponsor's signature, the wallet's signature of the operation hash (through the pipeline, judged
 * by policies as the ERC-20 transfer it executes) with the signed operation and its hash stored in
 * that signature's own commit, before anything is submitted. A policy review pauses the record at `requires_action`.
 */
import type { Hex } from 'viem';
import { ApiError } from '../errors.ts';
import type { TransactionRecord } from '../ports.ts';
import { parseSigningInput } from '../signing/pipeline.ts';
import { reviewIdOf } from '../transactions/frozen-preparation.ts';
import { checkGasCap } from './gas-cap.ts';
import type { AuthorizationToSign, SignedAuthorizationParts } from './operation-chain.ts';
import { operationCaller, ownerSignatureIntent, sponsoredContext, transferFacts, withContext, type SponsoredStep } from './operation-context.ts';
import type { SaveStep, SponsoredChainAccess, SponsoredWorkerDeps } from './worker-deps.ts';

/** The audit action of the wallet's delegation signed for a sponsored transfer. */
export const SPONSORED_AUTHORIZATION_ACTION = 'wallet.sign.sponsored-authorization';
const DEFAULT_VALIDITY_SECONDS = 3_600;

/** Why an operation ends before anything was submitted (the record becomes `failed`). */
export interface SponsoredRefusal {
  code: string;
  message: string;
}

export function createOperationSigner(deps: SponsoredWorkerDeps, save: SaveStep, end: (record: TransactionRecord, refusal: SponsoredRefusal) => Promise<unknown>) {
  const { pipeline, serviceKeys, sponsorship, clock } = deps;

  /** A pipeline refusal: a review pauses the record, a denial or an unsignable wallet ends it. */
  async function refused(record: TransactionRecord, error: unknown): Promise<boolean> {
    const reviewId = reviewIdOf(error);
    if (reviewId !== null) {
      await sponsorship.releaseSponsorshipBudget(record.id).catch(() => undefined);
      await save(record, { stage: 'requires_action', reviewId, status: 'pending', nextCheckAt: null, consecutiveErrors: 0 });
      return true;
    }
    if (error instanceof ApiError && (error.status === 403 || error.status === 409 || error.status === 400)) {
      await end(record, { code: error.code, message: error.message });
      return true;
    }
    return false;
  }

  async function signStep<T>(record: TransactionRecord, step: SponsoredStep, sign: () => Promise<T>): Promise<T | null> {
    try {
      return await sign();
    } catch (error) {
      if (await refused(record, error)) return null;
      throw error;
    }
  }

  async function authorize(record: TransactionRecord, needed: AuthorizationToSign | null, wallet: Parameters<typeof pipeline.sign>[0]['wallet'], shares: Parameters<typeof pipeline.sign>[0]['shares']) {
    if (!needed) return { authorization: null, signature: null };
    const body = { authorization: { address: needed.delegate, chainId: needed.chainId, nonce: needed.nonce } };
    // Its audit row and event are kept for the commit that stores the signed operation: a delegation
    // the service never stores (refused operation, killed process) leaves none.
    const signed = await signStep(record, 'authorization', () =>
      pipeline.signAndRecord({
        caller: operationCaller(record, 'authorization'),
        wallet,
        shares,
        operation: 'authorization',
        action: SPONSORED_AUTHORIZATION_ACTION,
        chain: { walletType: 'EVM', chainId: record.chainId, network: null },
        transfer: null,
        input: parseSigningInput('EVM', 'authorization', body),
      }, async (_result, signature) => signature),
    );
    if (!signed) return null;
    const r = signed.result.response as { r: Hex; s: Hex; yParity: number };
    const authorization: SignedAuthorizationParts = { ...needed, r: r.r, s: r.s, yParity: r.yParity };
    return { authorization, signature: signed.recorded };
  }

  return {
    /** Runs the record from `accepted` to `signed` (lease kept for the submission); false when it stopped (paused, ended, lease lost). */
    async sign(record: TransactionRecord, access: SponsoredChainAccess): Promise<TransactionRecord | null> {
      const facts = transferFacts(record);
      // Three independent reads at once (each is a wait on the node or the database); the simulation decides first.
      const loading = deps.loadWalletWithShares(operationCaller(record, 'operation'), record.walletId);
      const needing = access.chain.authorizationNeeded(record.fromAddress as Hex);
      loading.catch(() => undefined);
      needing.catch(() => undefined);
      const simulation = await access.chain.simulate(facts);
      if (!simulation.ok) {
        await end(record, { code: 'EXECUTION_FAILED', message: `The transfer would fail, so it was not sponsored: ${simulation.message}` });
        return null;
      }
      const { wallet, shares } = await loading;
      const delegation = await authorize(record, await needing, wallet, shares);
      if (!delegation) return null;

      const location = { projectId: record.projectId, environment: sponsoredContext(record).environment };
      const [draft, head] = await Promise.all([access.chain.draft(facts, delegation.authorization), access.gateway.getHeads()]);
      const cap = checkGasCap(await sponsorship.get(location), draft.maxCostWei);
      if (!cap.ok) {
        await end(record, { code: cap.code, message: cap.message });
        return null;
      }
      const budget = await sponsorship.reserveSponsorshipBudget(location, record.id, draft.maxCostWei);
      if (!budget.ok) {
        await end(record, { code: budget.code, message: budget.message });
        return null;
      }

      const window = { validAfter: 0, validUntil: Math.floor(clock.now().getTime() / 1000) + (deps.sponsorshipValiditySeconds ?? DEFAULT_VALIDITY_SECONDS) };
      const sponsorSignature = await serviceKeys.signSponsorship(access.config.chainId, access.chain.sponsorshipHash(draft.operation, window));
      const sponsored = access.chain.withSponsorSignature(draft.operation, window, sponsorSignature);
      const userOperationHash = access.chain.userOperationHash(sponsored);

      // The signed operation is stored in the signature's own commit (a lease lost meanwhile stores neither).
      const saved = await signStep(record, 'operation', async () => {
        const signed = await pipeline.signAndRecord(ownerSignatureIntent(record, wallet, shares, userOperationHash), (result, signature) => {
          deps.crashAt?.('signed');
          const operation = access.chain.withOwnerSignature(sponsored, `0x${String(result.response.signature).replace(/^0x/, '')}` as Hex);
          return save(
            record,
            {
              stage: 'signed',
              status: 'pending',
              reviewId: null,
              userOperation: operation,
              userOperationHash,
              monitoring: withContext(record, { operationNonce: draft.nonce.toString(), fromBlock: (head.latest > 0n ? head.latest - 1n : 0n).toString() }),
              consecutiveErrors: 0,
            },
            [],
            // Still `accepted`: a run of this process that took the record over after its lease passed may have stored it first.
            { keepLease: true, onlyIfStage: 'accepted', signature: delegation.signature ? [delegation.signature, signature] : signature },
          );
        });
        return signed?.recorded ?? null;
      });
      if (!saved) return null;
      deps.crashAt?.('sponsored-persisted');
      return saved;
    },
  };
}
