/**
 * The sponsored-transfer worker's unit of work: lease the due sponsored records (the legacy monitor
 * never leases them) and move each one along its stages (stages.ts):
 *
 * - `accepted` → sign (sign-operation.ts): simulation, authorization, draft, gas cap, budget,
 *   sponsor and owner signatures, the signed operation stored → `signed` (or `requires_action`
 *   on a review, or `failed` on a refusal, with nothing submitted);
 * - `signed` → submit (submit-relayer.ts) → `submission_unknown` while the node has not answered,
 *   `submitted` once it took the relayer's transaction;
 * - `submitted`, `submission_unknown`, `included`, `delivery_unverified` → follow the chain evidence
 *   (follow-operation.ts) to `confirmed`, `reverted` or `failed`, resubmitting only the stored bytes.
 *
 * Everything durable is on the record; a killed worker's leases expire and any process continues.
 */
import type { TransactionRecord } from '../ports.ts';
import { ChainUnavailableError } from '../transactions/gateways.ts';
import { exponentialBackoffMs } from '../shared/backoff.ts';
import { resolvedEvents } from '../transactions/events.ts';
import { createOperationFollower } from './follow-operation.ts';
import { createOperationSigner, type SponsoredRefusal } from './sign-operation.ts';
import type { SponsoredStage } from './stages.ts';
import { createRelayerSubmission } from './submit-relayer.ts';
import type { SaveStep, SponsoredChainAccess, SponsoredWorkerDeps } from './worker-deps.ts';
import { createBundlerSubmission } from './submit-bundler.ts';
import { createOperationReplacer } from './replace-operation.ts';
import { sponsoredContext } from './operation-context.ts';
import type { Hex } from 'viem';

export { createSponsoredWakeups, type SponsoredWakeups } from './wakeups.ts';

const RETRY_BASE_MS = 1_000;
const FIRST_REASON = 'first submission of the signed operation';
const RESUBMIT_REASON = 'no evidence on chain and the last submission is gone: the stored operation is sent again';
const RETRY_MAX_MS = 30_000;

export function createSponsoredRunner(deps: SponsoredWorkerDeps) {
  const { store, clock, owner } = deps;
  const batchSize = deps.batchSize ?? 10;
  const leaseMs = deps.leaseMs ?? 15_000;

  const save: SaveStep = (record, patch, events = [], options) => store.save(owner, record.id, patch, events, options);

  /** Ends an operation before anything was submitted: `failed`, its budget reservation given back. */
  async function end(record: TransactionRecord, refusal: SponsoredRefusal, failureStage: 'mpc_sign' | 'broadcast' = 'mpc_sign') {
    const resolvedAt = clock.now();
    const patch = { status: 'failed' as const, failureStage, failureCode: refusal.code, failureMessage: refusal.message, resolvedAt, nextCheckAt: null, reviewId: null };
    const saved = await save(record, patch, resolvedEvents({ ...record, ...patch }, deps.isDevnet(record), resolvedAt));
    await deps.sponsorship.releaseSponsorshipBudget(record.id).catch(() => undefined);
    return saved;
  }

  const signer = createOperationSigner(deps, save, end);
  const relayer = createRelayerSubmission(deps, save);
  const bundler = createBundlerSubmission(deps, save);
  const viaBundler = (access: SponsoredChainAccess) => access.config.submission === 'bundler';
  const follower = createOperationFollower(deps, save, {
    resubmit: (record, access) =>
      !viaBundler(access) && record.signedTransaction ? relayer.send(record, access, RESUBMIT_REASON) : submit(record, access, RESUBMIT_REASON),
    known: async (record, access) => {
      if (viaBundler(access)) return bundler.held(record);
      // Any of its relayer transactions (a replacement's, or the one it replaces while the node refuses the replacement).
      const hashes = [...new Set((sponsoredContext(record).attempts ?? []).flatMap((a) => (a.hash ? [a.hash as Hex] : [])))];
      return hashes.length > 0 && (await access.gateway.getTransactionsKnown(hashes)).some(Boolean);
    },
    replace: (record, access, submissionKnown) => replacer.consider(record, access, submissionKnown),
  });
  const replacer = createOperationReplacer(deps, save, (record, access, reason) => submit(record, access, reason));

  /**
   * Submits the signed operation. The EntryPoint refusing it with AA25 means its nonce was used:
   * perhaps by this very operation (a submission whose answer was lost), so the evidence decides;
   * any other refusal (signatures, the paymaster's deposit or window) ends it, nothing was sent.
   */
  async function submit(record: TransactionRecord, access: SponsoredChainAccess, reason = FIRST_REASON) {
    const outcome = await (viaBundler(access) ? bundler.submit(record, access, reason) : relayer.submit(record, access, reason));
    if (outcome.kind !== 'rejected') return;
    if (outcome.error.code === 'AA25') {
      await follower.follow(record, access);
      return;
    }
    await end(record, { code: 'USER_OPERATION_REJECTED', message: `The EntryPoint refused the signed operation, so it was not submitted: ${outcome.error.message}` }, 'broadcast');
  }

  async function step(record: TransactionRecord): Promise<void> {
    const access = deps.chains(Number(record.chainId));
    if (!access) {
      await end(record, { code: 'SPONSORSHIP_UNAVAILABLE', message: `Chain ${record.chainId} is no longer configured for sponsorship` });
      return;
    }
    switch (record.stage as SponsoredStage) {
      case 'accepted': {
        const signed = await signer.sign(record, access);
        if (signed) await submit(signed, access);
        return;
      }
      case 'signed':
        await submit(record, access);
        return;
      case 'requires_action':
        // Waits for a resume, which makes it `accepted` and due.
        await save(record, { nextCheckAt: null });
        return;
      default:
        await follower.follow(record, access);
    }
  }

  /** An error in one record's step (RPC down, …): retried later with backoff; the others go on. */
  async function failed(record: TransactionRecord, error: unknown) {
    const errors = record.consecutiveErrors + 1;
    // An RPC or bundler URL can carry a provider's key: never logged.
    const message = error instanceof ChainUnavailableError ? `the chain's RPC did not answer` : ((error as Error)?.message ?? String(error)).replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>');
    deps.logger?.warn({ transactionId: record.id, stage: record.stage, err: { message: message.slice(0, 300) } }, 'sponsored operation step failed; retrying');
    await store
      .save(owner, record.id, { consecutiveErrors: errors, nextCheckAt: new Date(clock.now().getTime() + exponentialBackoffMs(errors, RETRY_BASE_MS, RETRY_MAX_MS)) }, [])
      .catch(() => undefined);
  }

  return {
    batchSize,
    /** Records announced as due in this process (deps.wakeups): the worker runs `runOnce([id])` at once. */
    onDue(listener: (recordId: string) => void): () => void {
      return deps.wakeups?.subscribe(listener) ?? (() => undefined);
    },
    /** Leases the due records (only those of `only` when given) and runs a step of each. */
    async runOnce(only?: readonly string[]): Promise<{ leased: number }> {
      const now = clock.now();
      const leased = await store.leaseDue(owner, now, new Date(now.getTime() + leaseMs), batchSize, only);
      await Promise.all(
        leased.map(async (record) => {
          try {
            await step(record);
          } catch (error) {
            await failed(record, error);
          }
        }),
      );
      return { leased: leased.length };
    },
  };
}

export type SponsoredRunner = ReturnType<typeof createSponsoredRunner>;
