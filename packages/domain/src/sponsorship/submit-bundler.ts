/**
 * Bundler submission: the stored operation goes to the configured ERC-4337 bundler
 * (`eth_sendUserOperation`), byte for byte, every time. Before the call the record is at
 * `submission_unknown` (the call may reach the bundler and its answer be lost); the bundler's
 * acceptance makes it `submitted`. Without evidence on chain, the stored bytes are sent again once
 * `RESEND_AFTER_MS` has passed since the last submission (a bundler that restarted may have lost its
 * mempool); a bundler that already holds the operation refuses the resend, which changes nothing.
 */
import type { Hex } from 'viem';
import type { TransactionRecord } from '../ports.ts';
import { OperationRejectedError } from './operation-chain.ts';
import { sponsoredContext, withAttempt, withContext, withLastOutcome } from './operation-context.ts';
import { FIRST_LOOK_MS, type SubmitOutcome } from './submit-relayer.ts';
import type { SaveStep, SponsoredChainAccess, SponsoredWorkerDeps } from './worker-deps.ts';

/** How long a submission counts as held by the bundler without evidence on chain. */
export const RESEND_AFTER_MS = 6_000;

export function createBundlerSubmission(deps: SponsoredWorkerDeps, save: SaveStep) {
  const { clock } = deps;
  const after = (ms: number) => new Date(clock.now().getTime() + ms);

  return {
    /** Whether the last submission is recent enough to wait for (else the stored bytes go again). */
    held(record: TransactionRecord): boolean {
      const last = sponsoredContext(record).attempts?.at(-1)?.sentAt;
      return last !== undefined && clock.now().getTime() - Date.parse(last) < RESEND_AFTER_MS;
    },

    async submit(record: TransactionRecord, access: SponsoredChainAccess, reason: string): Promise<SubmitOutcome> {
      const send = access.chain.sendToBundler;
      if (!send) throw new Error(`chain ${access.config.chainId} has no bundler`);
      const context = sponsoredContext(record);
      const attempts = withAttempt(context.attempts, { hash: null, userOperationHash: record.userOperationHash!, sentAt: clock.now().toISOString(), outcome: 'unknown' });
      const pending = await save(record, { stage: 'submission_unknown', status: 'submitted', monitoring: withContext(record, { attempts, reason }) }, [], { keepLease: true });
      if (!pending) return { kind: 'lost' };
      const answer = await send(pending.userOperation!);
      switch (answer.kind) {
        case 'rejected':
          return { kind: 'rejected', error: new OperationRejectedError(answer.message, answer.code) };
        case 'unknown': {
          const saved = await save(pending, { nextCheckAt: after(FIRST_LOOK_MS), monitoring: withContext(pending, {}, { lastError: `bundler: ${answer.message.slice(0, 200)}` }) });
          return saved ? { kind: 'unknown', record: saved } : { kind: 'lost' };
        }
        case 'refused':
        case 'accepted': {
          if (answer.kind === 'accepted' && answer.userOperationHash.toLowerCase() !== (pending.userOperationHash as Hex).toLowerCase()) {
            throw new Error(`the bundler named the operation ${answer.userOperationHash}, not its stored hash ${pending.userOperationHash}`);
          }
          deps.crashAt?.('sponsored-submitted');
          const saved = await save(pending, {
            stage: 'submitted',
            status: 'submitted',
            submittedAt: pending.submittedAt ?? clock.now(),
            nextCheckAt: after(FIRST_LOOK_MS),
            consecutiveErrors: 0,
            monitoring: withContext(
              pending,
              { attempts: withLastOutcome(attempts, answer.kind === 'refused' ? 'refused' : 'pending') },
              { lastError: answer.kind === 'refused' ? `bundler: ${answer.message.slice(0, 200)}` : null },
            ),
          });
          return saved ? { kind: 'submitted', record: saved } : { kind: 'lost' };
        }
      }
    },
  };
}
