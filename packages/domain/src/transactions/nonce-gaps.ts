/**
 * Stranded wallets and their repair. An EVM wallet is stranded on a chain when the chain's nonce
 * (mined transactions) stays below the lowest nonce of its unresolved records and nothing holds the
 * nonces in between: no record, no live reservation, no open approval case, no prepared yield step.
 * The node queues every later transaction of the wallet behind the missing nonce, for good. Nonce
 * reservations keep the service from creating such a gap; this repairs one that exists anyway
 * (a database restored from a backup, a transaction broadcast elsewhere and dropped, a gap left by
 * an older version).
 *
 * The repair signs, for each missing nonce, a zero-value self-transfer through the signing
 * pipeline (`serviceInitiated: 'nonce-gap-filler'`: no policy decision, no spend meter, audited
 * with its `transaction.signed` event), records it before sending like any broadcast (intentKind
 * `transfer`, `serviceInitiated: 'nonce_gap_filler'`, visible in the wallet's history) with a
 * `wallet.nonce_gap_filled` event, and sends it. The nonce is reserved for the filler exactly as a
 * transfer reserves one, so a transfer and a filler never take the same nonce.
 */
import { keccak256, type Hex } from 'viem';
import type { EncryptedShare } from '../custody/types.ts';
import { newEventId } from '../events/events.ts';
import type { Environment, NewEvent, TransactionRecord, TransactionStore, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { fieldError, uuidSchema } from '../shared/zod.ts';
import type { SigningPipeline } from '../signing/pipeline.ts';
import { FIRST_CHECK_DELAY_MS, NO_RECORD_FIELDS, sendRecorded } from './broadcast.ts';
import { signTransactionAndRecord, transactionIntent } from './context.ts';
import { NATIVE_TRANSFER_GAS } from './evm-transfer.ts';
import type { ChainGateways, Hex as GatewayHex } from './gateways.ts';

/** A (wallet, EVM chain) with unresolved records whose lowest-nonce one has waited long enough to judge. */
export interface NonceGapCandidate {
  walletId: string;
  projectId: string;
  partnerId: string;
  address: string;
  chainId: string;
  /** The lowest nonce of the wallet's `pending` and `submitted` records on the chain. */
  lowestUnresolved: number;
  /** How many unresolved records wait on the chain. */
  waiting: number;
  /** The API key and environment of the lowest waiting record (the filler's audit row names the key). */
  apiKeyId: string | null;
  environment: Environment;
}

export interface NonceGapStore {
  /** Candidates whose lowest unresolved record was created before `before`; one wallet's when given. */
  candidates(before: Date, limit: number, walletId?: string): Promise<NonceGapCandidate[]>;
  /** The nonces in [from, to) that something holds: an unresolved record, a live reservation, an open or just consumed approval case, a prepared yield step. */
  heldNonces(walletId: string, chainId: string, from: number, to: number): Promise<number[]>;
  /** Reserves exactly `nonce` for `leaseMs` when nothing holds it; the reservation id, else null. */
  claimNonce(walletId: string, chainId: string, nonce: number, leaseMs: number): Promise<string | null>;
}

export interface StrandedWallet extends NonceGapCandidate {
  /** The chain's nonce (eth_getTransactionCount at `latest`). */
  chainNonce: number;
  /** The nonces between the chain's nonce and the lowest unresolved record that nothing holds. */
  missing: number[];
}

export interface FilledGap {
  walletId: string;
  chainId: string;
  nonce: number;
  transactionId: string;
  hash: string;
}

/** At most this many nonces of one wallet are filled per run (a larger gap is a sign of something else: look first). */
export const MAX_FILLS_PER_WALLET = 20;

/** The nonces in [chainNonce, lowestUnresolved) that nothing holds. */
export function missingNonces(chainNonce: number, lowestUnresolved: number, held: readonly number[]): number[] {
  const taken = new Set(held);
  const missing: number[] = [];
  for (let n = chainNonce; n < lowestUnresolved; n++) if (!taken.has(n)) missing.push(n);
  return missing;
}

export interface NonceGapRepairDeps {
  gaps: NonceGapStore;
  transactions: TransactionStore;
  gateways: ChainGateways;
  pipeline: SigningPipeline;
  clock: Clock;
  isDevnet: (record: Pick<TransactionRecord, 'walletType' | 'chainId' | 'network'>) => boolean;
  loadWalletWithShares: (caller: Caller, walletId: string) => Promise<{ wallet: WalletRecord; shares: EncryptedShare[] }>;
  /** How long the lowest unresolved record waits before its wallet is judged (default 60 s: past a lapsed reservation's reuse and a retried request's key lease). */
  strandedAfterMs?: number;
  /** How long a filler's nonce is reserved while it is signed (default 20 s). */
  reservationMs?: number;
}

const nonceGapFilledEvent = (stranded: StrandedWallet, record: TransactionRecord, at: Date): NewEvent => ({
  id: newEventId(),
  projectId: stranded.projectId,
  type: 'wallet.nonce_gap_filled',
  data: {
    walletId: stranded.walletId,
    walletAddress: stranded.address,
    chainId: stranded.chainId,
    nonce: record.nonce,
    transactionId: record.id,
    txHash: record.hash,
    waitingTransactions: stranded.waiting,
    filledAt: at.toISOString(),
  },
  transactionId: record.id,
});

export function createNonceGapRepair(deps: NonceGapRepairDeps) {
  const { gaps, transactions, gateways, pipeline, clock } = deps;
  const strandedAfterMs = deps.strandedAfterMs ?? 60_000;
  const reservationMs = deps.reservationMs ?? 20_000;

  /** The stranded wallets now (one wallet's with `walletId`): candidates, the chains' nonces in one batch per chain, the holds. */
  async function findStranded(options: { walletId?: string; limit?: number } = {}): Promise<StrandedWallet[]> {
    const before = new Date(clock.now().getTime() - (options.walletId ? 0 : strandedAfterMs));
    const candidates = await gaps.candidates(before, options.limit ?? 500, options.walletId);
    const byChain = new Map<string, NonceGapCandidate[]>();
    for (const c of candidates) byChain.set(c.chainId, [...(byChain.get(c.chainId) ?? []), c]);
    const stranded: StrandedWallet[] = [];
    for (const [chainId, list] of byChain) {
      const gateway = gateways.evm(Number(chainId));
      if (!gateway) continue;
      const nonces = await gateway.getNonces(list.map((c) => c.address as GatewayHex), 'latest');
      for (const [i, c] of list.entries()) {
        const chainNonce = nonces[i]!;
        if (chainNonce >= c.lowestUnresolved) continue;
        const missing = missingNonces(chainNonce, c.lowestUnresolved, await gaps.heldNonces(c.walletId, chainId, chainNonce, c.lowestUnresolved));
        if (missing.length > 0) stranded.push({ ...c, chainNonce, missing });
      }
    }
    return stranded;
  }

  /** Signs, records and sends a zero-value self-transfer at each missing nonce of `stranded` that is still free. */
  async function fill(stranded: StrandedWallet): Promise<FilledGap[]> {
    const gateway = gateways.evm(Number(stranded.chainId));
    if (!gateway) return [];
    const caller: Caller = {
      partnerId: stranded.partnerId,
      projectId: stranded.projectId,
      apiKeyId: stranded.apiKeyId ?? '',
      environment: stranded.environment,
      plan: 'free',
      requestId: null,
    };
    const { wallet, shares } = await deps.loadWalletWithShares(caller, stranded.walletId);
    const target = { type: 'EVM' as const, gateway, chainId: stranded.chainId };
    const suggestion = await gateway.getFeeSuggestion();
    const filled: FilledGap[] = [];
    for (const nonce of stranded.missing.slice(0, MAX_FILLS_PER_WALLET)) {
      const reservationId = await gaps.claimNonce(wallet.id, stranded.chainId, nonce, reservationMs);
      if (reservationId === null) continue; // taken meanwhile (a transfer reused it)
      const intent = transactionIntent(
        { caller, wallet, shares, action: 'wallet.sign.nonce-gap-fill', target, transfer: { to: wallet.address, value: '0', tokenAddress: null } },
        {
          transaction: {
            to: wallet.address,
            value: '0',
            chainId: Number(stranded.chainId),
            type: 2,
            nonce,
            gasLimit: NATIVE_TRANSFER_GAS.toString(),
            // Twice the suggestion: the filler unblocks others, so it should not wait on fees.
            maxFeePerGas: (suggestion.maxFeePerGas * 2n).toString(),
            maxPriorityFeePerGas: (suggestion.maxPriorityFeePerGas * 2n > suggestion.maxFeePerGas * 2n ? suggestion.maxFeePerGas * 2n : suggestion.maxPriorityFeePerGas * 2n).toString(),
          },
        },
        'nonce-gap-filler',
      );
      let record: TransactionRecord | null;
      try {
        // The filler's record takes the nonce in the signature's own commit.
        record = await signTransactionAndRecord(pipeline, intent, (signed, signature) => {
          const now = clock.now();
          const draft = {
            id: crypto.randomUUID(),
            projectId: stranded.projectId,
            partnerId: stranded.partnerId,
            walletId: wallet.id,
            walletType: 'EVM' as const,
            intentKind: 'transfer' as const,
            status: 'pending' as const,
            chainId: stranded.chainId,
            network: null,
            fromAddress: wallet.address,
            hash: keccak256(signed as Hex),
            failureStage: null,
            failureCode: null,
            failureMessage: null,
            monitoring: null,
            serviceInitiated: 'nonce_gap_filler' as const,
            requestId: null,
            apiKeyId: null,
            signedTransaction: signed,
            submittedAt: null,
            nextCheckAt: new Date(now.getTime() + FIRST_CHECK_DELAY_MS),
            ...NO_RECORD_FIELDS,
            to: wallet.address,
            value: '0',
            nonce,
          };
          return transactions.create(draft, [nonceGapFilledEvent(stranded, { ...draft, createdAt: now } as TransactionRecord, now)], reservationId, signature);
        });
      } catch (error) {
        await transactions.releaseNonce(wallet.id, stranded.chainId, nonce, reservationId);
        throw error;
      }
      if (!record) continue;
      await sendRecorded({ store: transactions, clock, isDevnet: deps.isDevnet }, record, target, { resend: false, nonceToRelease: nonce, onUnreachable: 'keep-pending' });
      filled.push({ walletId: wallet.id, chainId: stranded.chainId, nonce, transactionId: record.id, hash: record.hash! });
    }
    return filled;
  }

  return {
    findStranded,
    fill,
    /** The operator's repair of one wallet now (CLI): its gaps on every chain, whatever their age, filled. */
    async repairWallet(walletId: string): Promise<{ walletId: string; stranded: StrandedWallet[]; filled: FilledGap[] }> {
      if (!uuidSchema.safeParse(walletId).success) throw fieldError('walletId', 'must be a wallet id (uuid)');
      const stranded = await findStranded({ walletId });
      const filled: FilledGap[] = [];
      for (const s of stranded) filled.push(...(await fill(s)));
      return { walletId, stranded, filled };
    },
    /** One pass: every stranded wallet found, and the fillers sent; a wallet that fails to fill does not stop the others. */
    async runOnce(): Promise<{ stranded: StrandedWallet[]; filled: FilledGap[]; errors: { walletId: string; chainId: string; message: string }[] }> {
      const stranded = await findStranded();
      const filled: FilledGap[] = [];
      const errors: { walletId: string; chainId: string; message: string }[] = [];
      for (const s of stranded) {
        try {
          filled.push(...(await fill(s)));
        } catch (error) {
          errors.push({ walletId: s.walletId, chainId: s.chainId, message: ((error as Error).message ?? String(error)).slice(0, 300) });
        }
      }
      return { stranded, filled, errors };
    },
  };
}

export type NonceGapRepair = ReturnType<typeof createNonceGapRepair>;
