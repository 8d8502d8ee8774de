/**
 * Managed retry of a submitted sponsored operation that is stuck under the base fee
 * (docs/sponsorship.md, "Retry of sponsored operations"), with the policy of the EVM transfers'
 * fee replacement (transactions/attempts.ts): once the last operation has waited `afterBlocks`
 * blocks without its event and offered a maxFeePerGas below the chain's base fee, a replacement
 * user operation is made with the same sender, EntryPoint nonce, call, gas limits and
 * authorization, both fee fields raised by at least 10 % (or to the node's suggestion), at most
 * `maxAttempts` operations in all. Its maximum cost must fit the gas cap, and the budget
 * reservation is raised to it, exactly as admission checks a new one; then the sponsor signs it
 * again and the wallet signs its new hash through the signing pipeline as a fee replacement (the
 * same transfer intent, its spend not charged twice).
 *
 * The replacement is stored (the record's operation becomes the new one) before it is sent. With
 * the relayer, its handleOps transaction reuses the stuck bundle transaction's relayer nonce, with
 * fees at least 10 % higher, so the node keeps one of the two; with a bundler, the bundler replaces
 * the operation of the same sender and nonce. Either way both operations share the EntryPoint
 * nonce: whichever is included, the other can never execute.
 */
import { keccak256, type Hex } from 'viem';
import type { SignatureWrite, TransactionRecord } from '../ports.ts';
import { DEFAULT_AUTO_RETRY_AFTER_BLOCKS, DEFAULT_AUTO_RETRY_MAX_ATTEMPTS, nextAttemptFees, type AttemptFees } from '../transactions/attempts.ts';
import { BroadcastRejectedError, ChainUnavailableError } from '../transactions/gateways.ts';
import { checkGasCap } from './gas-cap.ts';
import { OperationRejectedError } from './operation-chain.ts';
import { operationCaller, operationHashes, ownerSignatureIntent, sponsoredContext, withAttempt, withContext } from './operation-context.ts';
import type { SaveStep, SponsoredChainAccess, SponsoredWorkerDeps } from './worker-deps.ts';

/** How often a waiting operation is looked at again (as follow-operation.ts). */
const LOOK_AGAIN_MS = 1_000;
/** No fee ceiling beyond the gas cap: the cap bounds gas limits × maxFeePerGas. */
const NO_FEE_CEILING = (1n << 128n) - 1n;
const DEFAULT_VALIDITY_SECONDS = 3_600;

const max = (a: bigint, b: bigint) => (a > b ? a : b);
const errorText = (error: unknown) => ((error as Error)?.message ?? String(error)).replace(/\b[a-z][a-z0-9+.-]*:\/\/\S+/gi, '<url>').slice(0, 300);

export function createOperationReplacer(
  deps: SponsoredWorkerDeps,
  save: SaveStep,
  /** The bundler's hand-over of the stored operation (bundler submission only). */
  submitToBundler: (record: TransactionRecord, access: SponsoredChainAccess, reason: string) => Promise<unknown>,
) {
  const { pipeline, serviceKeys, sponsorship, clock } = deps;
  const afterBlocks = BigInt(deps.autoRetry?.afterBlocks ?? DEFAULT_AUTO_RETRY_AFTER_BLOCKS);
  const maxAttempts = deps.autoRetry?.maxAttempts ?? DEFAULT_AUTO_RETRY_MAX_ATTEMPTS;
  const lookAgain = () => new Date(clock.now().getTime() + LOOK_AGAIN_MS);

  /** Keeps waiting, with why no replacement is made now (the record stays `submitted`). */
  const waitWith = (record: TransactionRecord, reason: string) =>
    save(record, { stage: 'submitted', status: 'submitted', nextCheckAt: lookAgain(), consecutiveErrors: 0, monitoring: withContext(record, { reason: reason.slice(0, 500) }) });

  /**
   * Sends the stored relayer transaction of the last operation. A refusal only marks it `refused`:
   * the earlier bundle transaction still holds the relayer nonce and may land.
   */
  async function sendStored(record: TransactionRecord, access: SponsoredChainAccess) {
    const context = sponsoredContext(record);
    const hash = keccak256(record.signedTransaction as Hex);
    const marked = (outcome: 'pending' | 'refused') => withAttempt(context.attempts, { ...context.attempts!.find((a) => a.hash === hash)!, sentAt: clock.now().toISOString(), outcome });
    try {
      await access.gateway.sendRawTransaction(record.signedTransaction as Hex);
    } catch (error) {
      if (error instanceof ChainUnavailableError) {
        return save(record, { nextCheckAt: lookAgain(), monitoring: withContext(record, {}, { lastError: `the chain's RPC did not answer the replacement` }) });
      }
      if (!(error instanceof BroadcastRejectedError)) throw error;
      if (error.code !== 'ALREADY_PROCESSED') {
        return save(record, {
          stage: 'submitted',
          nextCheckAt: lookAgain(),
          monitoring: withContext(record, { attempts: marked('refused') }, { lastError: `replacement refused: ${error.message.slice(0, 200)}` }),
        });
      }
    }
    return save(record, { stage: 'submitted', status: 'submitted', nextCheckAt: lookAgain(), consecutiveErrors: 0, monitoring: withContext(record, { attempts: marked('pending') }, { lastError: null }) });
  }

  /** The last operation's fees, or its relayer transaction's where those are higher (what a replacement must beat by 10 %). */
  function lastFees(record: TransactionRecord, access: SponsoredChainAccess): AttemptFees {
    const op = access.chain.operationFees(record.userOperation!);
    const last = sponsoredContext(record).attempts?.at(-1);
    return {
      maxFeePerGas: max(op.maxFeePerGas, BigInt(last?.maxFeePerGas ?? '0')),
      maxPriorityFeePerGas: max(op.maxPriorityFeePerGas, BigInt(last?.maxPriorityFeePerGas ?? '0')),
    };
  }

  return {
    /**
     * For a submitted operation without its event: sends a stored replacement the node never got
     * (while an earlier submission is pending), or makes a replacement when one is due, or records
     * why none is made. Null when there is nothing to do (the caller waits or resubmits).
     */
    async consider(record: TransactionRecord, access: SponsoredChainAccess, submissionKnown: boolean): Promise<unknown> {
      const context = sponsoredContext(record);
      const viaBundler = access.config.submission === 'bundler';
      const last = context.attempts?.at(-1);
      // A replacement stored but not seen sent (a crash between storing and sending) while the one it
      // replaces is still pending: its own bytes first, never a second plan. (Nothing pending: the
      // caller's resubmission sends them.)
      if (submissionKnown && !viaBundler && last?.outcome === 'unknown' && record.signedTransaction && last.hash === keccak256(record.signedTransaction as Hex)) {
        const known = (await access.gateway.getTransactionsKnown([last.hash as Hex]))[0];
        if (!known) return sendStored(record, access);
      }
      const { latest } = await access.gateway.getHeads();
      const waited = latest - BigInt(context.retryFrom ?? context.fromBlock ?? latest.toString());
      if (waited < afterBlocks) return null;
      const fees = lastFees(record, access);
      const suggestion = await access.gateway.getFeeSuggestion();
      // Priced at or above the base fee: it only waits for room in a block.
      if (fees.maxFeePerGas >= suggestion.baseFeePerGas) return null;
      const operations = operationHashes(record).length;
      if (operations >= maxAttempts) {
        return waitWith(record, `at most ${maxAttempts} operations: no further replacement; the last one waits for the base fee to fall`);
      }
      // The node's suggestion, or a bundler's floor where that is higher (it refuses less).
      const now = await access.chain.operationFeesNow();
      const floor = { maxFeePerGas: max(suggestion.maxFeePerGas, now.maxFeePerGas), maxPriorityFeePerGas: max(suggestion.maxPriorityFeePerGas, now.maxPriorityFeePerGas) };
      const next = nextAttemptFees(fees, floor, NO_FEE_CEILING);
      if ('reason' in next) return waitWith(record, next.reason);
      const repriced = access.chain.repriced(record.userOperation!, next.fees);

      const location = { projectId: record.projectId, environment: context.environment };
      const cap = checkGasCap(await sponsorship.get(location), repriced.maxCostWei);
      if (!cap.ok) return waitWith(record, `gas cap reached: a replacement with maxFeePerGas ${next.fees.maxFeePerGas} may cost up to ${cap.maxCostWei} wei, above the gas cap of ${cap.gasCapWei} wei; the last operation waits for fees to fall`);
      const budget = await sponsorship.raiseSponsorshipBudget(location, record.id, repriced.maxCostWei);
      if (!budget.ok) return waitWith(record, `budget reached (${budget.code}): ${budget.message}; the last operation waits for fees to fall`);

      const window = { validAfter: 0, validUntil: Math.floor(clock.now().getTime() / 1000) + (deps.sponsorshipValiditySeconds ?? DEFAULT_VALIDITY_SECONDS) };
      const sponsorSignature = await serviceKeys.signSponsorship(access.config.chainId, access.chain.sponsorshipHash(repriced.operation, window));
      const sponsored = access.chain.withSponsorSignature(repriced.operation, window, sponsorSignature);
      const userOperationHash = access.chain.userOperationHash(sponsored);
      const number = operations + 1;
      const reason = `replacement operation ${number}: operation ${number - 1} offered maxFeePerGas ${fees.maxFeePerGas}, below the base fee ${suggestion.baseFeePerGas}, for ${waited} blocks`;
      const held: { signed?: boolean; rejected?: unknown } = {};
      /** Stored before it is sent, in the owner signature's own commit: a crash now leaves bytes the next look sends (see above), or no signature at all. */
      const storeSigned = async (signature: SignatureWrite, ownerSignature: unknown): Promise<TransactionRecord | null> => {
        held.signed = true;
        const operation = access.chain.withOwnerSignature(sponsored, `0x${String(ownerSignature).replace(/^0x/, '')}` as Hex);
        const stored = { userOperation: operation, userOperationHash, consecutiveErrors: 0 };
        if (viaBundler) return save(record, { ...stored, monitoring: withContext(record, { retryFrom: latest.toString(), reason }) }, [], { keepLease: true, signature });
        const relayer = (await serviceKeys.ensureServiceKey('relayer', access.config.chainId)).address as Hex;
        let signedTransaction: Hex;
        try {
          // The stuck bundle transaction's nonce: the node keeps one of the two.
          const tx = await access.chain.relayerTransaction(operation, relayer, { nonce: context.relayerNonce!, ...next.fees });
          signedTransaction = await serviceKeys.signRelayerTransaction(access.config.chainId, tx);
        } catch (error) {
          // E.g. AA25: the earlier operation was just included; the next look finds its event. Nothing is stored.
          if (error instanceof OperationRejectedError) {
            held.rejected = error;
            return null;
          }
          throw error;
        }
        const attempts = withAttempt(context.attempts, {
          hash: keccak256(signedTransaction),
          userOperationHash,
          maxFeePerGas: next.fees.maxFeePerGas.toString(),
          maxPriorityFeePerGas: next.fees.maxPriorityFeePerGas.toString(),
          sentAt: clock.now().toISOString(),
          outcome: 'unknown',
        });
        return save(record, { ...stored, signedTransaction, monitoring: withContext(record, { attempts, retryFrom: latest.toString(), reason }) }, [], { keepLease: true, signature });
      };
      let saved: TransactionRecord | null;
      try {
        const caller = operationCaller(record, 'operation');
        const { wallet, shares } = await deps.loadWalletWithShares(caller, record.walletId);
        const signed = await pipeline.signAndRecord({ ...ownerSignatureIntent(record, wallet, shares, userOperationHash), feeReplacementOf: record.id }, (result, signature) =>
          storeSigned(signature, result.response.signature),
        );
        saved = signed?.recorded ?? null;
      } catch (error) {
        // What fails after the signature (keys, the store) is the worker's error, as before; a refused signature waits.
        if (held.signed) throw error;
        const code = (error as { code?: string }).code;
        return waitWith(record, `replacement not signed${code ? ` (${code})` : ''}: ${errorText(error)}`);
      }
      if (held.rejected !== undefined) return waitWith(record, `replacement not sent: the EntryPoint would refuse it: ${errorText(held.rejected)}`);
      if (!saved) return null;
      return viaBundler ? submitToBundler(saved, access, reason) : sendStored(saved, access);
    },
  };
}
