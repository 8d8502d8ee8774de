/**
 * A submitted operation, followed by chain evidence only (stages.ts decides): the UserOperationEvent
 * of any operation the record signed (the first, or a replacement with the same EntryPoint nonce),
 * the token's Transfer log in its part of the receipt, the block's finality (at or below
 * min(finalized, latest - 1) and still canonical), and without an event the EntryPoint nonce and
 * whether a relayer transaction of the record is still known to the node.
 */
import type { Hex } from 'viem';
import type { NewEvent, TransactionRecord } from '../ports.ts';
import { resolvedEvents } from '../transactions/events.ts';
import { decideFromEvidence, STATUS_OF_STAGE, type OperationEvidence } from './stages.ts';
import { operationHashes, resolvedAttempts, sponsoredContext, transferFacts, withContext } from './operation-context.ts';
import type { SaveStep, SponsoredChainAccess, SponsoredWorkerDeps } from './worker-deps.ts';

/** How often an unresolved operation is looked at again. */
export const FOLLOW_MS = 1_000;
/**
 * An included operation whose block is at most NEAR_FINAL_BLOCKS ahead of the settled head is looked
 * at this often instead: it resolves on the first look after its block is settled, so the look's
 * period is what it waits past that, and a whole FOLLOW_MS there often costs one more block than a
 * wallet's own transaction (whose monitor looks at once when finality covers it). Farther from
 * finality (a chain whose finalized head lags by minutes) FOLLOW_MS keeps the reads few.
 */
export const NEAR_FINAL_MS = 250;
export const NEAR_FINAL_BLOCKS = 2n;

export interface FollowerSubmission {
  /** Sends the stored operation again (its stored bytes). */
  resubmit(record: TransactionRecord, access: SponsoredChainAccess): Promise<unknown>;
  /** Whether a submission may still land by itself (a relayer transaction known to the node; a recent bundler submission). */
  known(record: TransactionRecord, access: SponsoredChainAccess): Promise<boolean>;
  /** An operation without its event: a replacement when it is stuck under the base fee (null: nothing done). */
  replace(record: TransactionRecord, access: SponsoredChainAccess, submissionKnown: boolean): Promise<unknown>;
}

export function createOperationFollower(deps: SponsoredWorkerDeps, save: SaveStep, submission: FollowerSubmission) {
  const { clock, sponsorship } = deps;
  const after = (ms: number) => new Date(clock.now().getTime() + ms);

  async function evidence(record: TransactionRecord, access: SponsoredChainAccess): Promise<OperationEvidence> {
    const context = sponsoredContext(record);
    // Every operation the record signed shares one EntryPoint nonce: at most one has an event.
    const hashes = operationHashes(record);
    const events = await Promise.all(hashes.map((h) => access.chain.findEvent(h, BigInt(context.fromBlock ?? '0'))));
    const found = events.findIndex((e) => e !== null);
    const event = found >= 0 ? events[found]! : null;
    const hash = hashes[found] as Hex;
    if (event) {
      const [heads, transferProven] = await Promise.all([
        access.gateway.getHeads(),
        event.success ? access.chain.deliveryProven(event.transactionHash, hash, transferFacts(record)) : Promise.resolve(false),
      ]);
      const settledHead = heads.finalized < heads.latest - 1n ? heads.finalized : heads.latest - 1n;
      const blocksToFinal = event.blockNumber > settledHead ? event.blockNumber - settledHead : 0n;
      let final = event.blockNumber <= settledHead;
      if (final) final = (await access.gateway.getBlockHashes([event.blockNumber]))[0]?.toLowerCase() === event.blockHash.toLowerCase();
      return {
        kind: 'included',
        userOperationHash: hash,
        success: event.success,
        actualGasCost: event.actualGasCost.toString(),
        transactionHash: event.transactionHash,
        blockNumber: event.blockNumber,
        blockHash: event.blockHash,
        transferProven,
        final,
        blocksToFinal,
      };
    }
    const [entryPointNonce, known] = await Promise.all([access.chain.entryPointNonce(record.fromAddress as Hex), submission.known(record, access)]);
    return { kind: 'absent', entryPointNonce, submissionKnown: known };
  }

  /** Saves a resolution with its events and settles (or releases) the budget. */
  async function resolve(record: TransactionRecord, patch: Parameters<SaveStep>[1], cost: string | null) {
    const resolvedAt = clock.now();
    const resolved = { ...record, ...patch, resolvedAt } as TransactionRecord;
    const events: NewEvent[] = resolvedEvents(resolved, deps.isDevnet(record), resolvedAt);
    const saved = await save(record, { ...patch, resolvedAt, nextCheckAt: null, consecutiveErrors: 0 }, events);
    if (saved) {
      if (cost === null) await sponsorship.releaseSponsorshipBudget(record.id).catch(() => undefined);
      else await sponsorship.settleSponsorshipBudget(record.id, cost).catch(() => undefined);
    }
    return saved;
  }

  return {
    async follow(record: TransactionRecord, access: SponsoredChainAccess): Promise<unknown> {
      const seen = await evidence(record, access);
      const decision = decideFromEvidence(BigInt(sponsoredContext(record).operationNonce ?? '0'), seen);
      switch (decision.kind) {
        case 'wait': {
          if (decision.stage === 'submitted') {
            const acted = await submission.replace(record, access, true);
            if (acted !== null) return acted;
          }
          const status = STATUS_OF_STAGE[decision.stage];
          const nearFinal = decision.stage === 'included' && seen.kind === 'included' && (seen.blocksToFinal ?? NEAR_FINAL_BLOCKS + 1n) <= NEAR_FINAL_BLOCKS;
          return save(record, { stage: decision.stage, status, nextCheckAt: after(nearFinal ? NEAR_FINAL_MS : FOLLOW_MS), consecutiveErrors: 0 });
        }
        case 'resubmit': {
          // Gone from the node: priced under the base fee, the stored bytes would be refused (or dropped again).
          const replaced = await submission.replace(record, access, false);
          return replaced !== null ? replaced : submission.resubmit(record, access);
        }
        case 'confirm':
        case 'revert': {
          const confirmed = decision.kind === 'confirm';
          return resolve(
            record,
            {
              status: confirmed ? 'confirmed' : 'reverted',
              stage: 'included',
              // A bundler's submission has no transaction of ours: the bundle that included it is the record's.
              hash: record.hash ?? decision.transactionHash,
              // The operation that executed (after a replacement, perhaps an earlier one).
              userOperationHash: decision.userOperationHash,
              blockNumber: decision.blockNumber,
              blockHash: decision.blockHash,
              actualGasCost: decision.actualGasCost,
              failureMessage: confirmed ? null : 'The user operation was included and its call reverted; the sponsor paid its gas',
              monitoring: withContext(
                record,
                { attempts: resolvedAttempts(sponsoredContext(record).attempts, decision.transactionHash, decision.userOperationHash) },
                { winningHash: decision.transactionHash, winningStatus: confirmed ? 'success' : 'reverted', chainOutcome: 'included', lastError: null },
              ),
            },
            decision.actualGasCost,
          );
        }
        case 'fail':
          return resolve(
            record,
            { status: 'failed', failureStage: 'broadcast', failureCode: decision.code, failureMessage: decision.message, monitoring: withContext(record, {}, { chainOutcome: 'nonce_consumed_elsewhere' }) },
            null,
          );
      }
    },
  };
}
