/**
 * The chain reads of one monitor run, batched per chain, turned into verdicts by the pure rules
 * (monitor-rules.ts). See monitor.ts for the order of a run.
 */
import type { TransactionRecord, TransactionStore } from '../ports.ts';
import type { EvmFeeSuggestion, EvmGateway, EvmReceipt, Hex, SolanaGateway, SolanaSignatureStatus } from './gateways.ts';
import type { TransactionAttempt } from './attempts.ts';
import { evaluateEvm, evaluateSolana, type EvmEvidence, type EvmHeads, type SolanaEvidence, type Verdict } from './monitor-rules.ts';

export const errorText = (error: unknown) => ((error as Error)?.message ?? String(error)).slice(0, 300);

/** Counts gateway calls of one run. */
export class Calls {
  count = 0;
  run<T>(promise: Promise<T>): Promise<T> {
    this.count++;
    return promise;
  }
}

/** The receipt an earlier check saw (block not final then), kept in the record's monitoring. */
function cachedReceipt(r: TransactionRecord): EvmReceipt | null {
  const c = r.monitoring?.receipt;
  if (!c) return null;
  return { transactionHash: (c.hash ?? r.hash) as Hex, status: c.status, blockNumber: BigInt(c.blockNumber), blockHash: c.blockHash as Hex, from: r.fromAddress as Hex };
}

/** The first of `hashes` with a receipt in `byHash`, and that receipt. */
function firstReceipt(hashes: string[], byHash: Map<string, EvmReceipt | null>): { hash: string; receipt: EvmReceipt } | null {
  for (const hash of hashes) {
    const receipt = byHash.get(hash) ?? null;
    if (receipt) return { hash, receipt };
  }
  return null;
}

/**
 * The EVM evidence of one chain's records, with batched reads: heads and receipts, canonical
 * hashes and finalized nonces, and for consumed nonces the same-nonce records of ours.
 * `replacements(r)`: the hashes of the record's fee replacements (attempts.ts); a receipt of any
 * of them is the record's own, and a landed record then names it in `monitoring.winningHash`.
 * With `withFees`, the heads are read with the fee suggestion in the same batch (for the fee
 * replacements of the run). Answers the heads read and the fees (null when the reads failed).
 */
export async function checkEvm(
  store: Pick<TransactionStore, 'findByNonce'>,
  gateway: EvmGateway,
  chainId: string,
  records: TransactionRecord[],
  calls: Calls,
  verdicts: Map<string, Verdict>,
  replacements: (r: TransactionRecord) => string[] = () => [],
  withFees = false,
): Promise<(EvmHeads & { fees?: EvmFeeSuggestion | null }) | null> {
  const hashesOf = (r: TransactionRecord) => [r.hash!, ...replacements(r)];
  let heads: EvmHeads & { fees?: EvmFeeSuggestion | null };
  const receipts: (EvmReceipt | null)[] = [];
  const fromCache: boolean[] = [];
  let canonical = new Map<bigint, string | null>();
  let finalizedNonces = new Map<string, number>();
  try {
    // Receipts only for records without one from an earlier check, one lookup per distinct hash
    // (a signed transaction broadcast twice has two records).
    const unique = [...new Set(records.filter((r) => !r.monitoring?.receipt).flatMap(hashesOf))];
    const [h, found] = await Promise.all([
      calls.run(withFees ? gateway.getHeadsAndFees() : gateway.getHeads()),
      unique.length ? calls.run(gateway.getReceipts(unique as Hex[])) : Promise.resolve([]),
    ]);
    heads = h;
    const byHash = new Map(unique.map((x, i) => [x, found[i] ?? null]));
    for (const r of records) {
      const cached = cachedReceipt(r);
      receipts.push(cached ?? firstReceipt(hashesOf(r), byHash)?.receipt ?? null);
      fromCache.push(cached !== null);
    }
    // Canonical hashes only where a receipt could resolve now: at or below the finalized head.
    const heights = [...new Set(receipts.filter((r): r is EvmReceipt => r !== null && r.blockNumber <= heads.finalized).map((r) => r.blockNumber))];
    const noReceipt = records.filter((r, i) => receipts[i] === null && r.nonce !== null);
    const senders = [...new Set(noReceipt.map((r) => r.fromAddress.toLowerCase()))];
    const [hashes, nonces] = await Promise.all([
      heights.length ? calls.run(gateway.getBlockHashes(heights)) : Promise.resolve([]),
      senders.length ? calls.run(gateway.getNonces(senders as Hex[], 'finalized')) : Promise.resolve([]),
    ]);
    canonical = new Map(heights.map((x, i) => [x, hashes[i] ?? null]));
    finalizedNonces = new Map(senders.map((x, i) => [x, nonces[i]!]));
  } catch (error) {
    for (const r of records) verdicts.set(r.id, { kind: 'error', message: errorText(error) });
    return null;
  }

  const evidence = new Map<string, EvmEvidence>();
  const consumed: TransactionRecord[] = [];
  records.forEach((r, i) => {
    const receipt = receipts[i]!;
    const finalizedNonce = receipt ? undefined : finalizedNonces.get(r.fromAddress.toLowerCase());
    evidence.set(r.id, { heads, receipt, canonicalHash: receipt ? (canonical.get(receipt.blockNumber) ?? null) : null, finalizedNonce });
    if (!receipt && r.nonce !== null && finalizedNonce !== undefined && finalizedNonce > r.nonce) consumed.push(r);
  });

  if (consumed.length > 0) {
    try {
      // Who else used these nonces, and their receipts; our own receipts again, read after the nonce.
      const siblingLists = await Promise.all(consumed.map((r) => store.findByNonce(r.walletId, chainId, r.nonce!)));
      const hashes = new Set<string>();
      consumed.forEach((r, i) => {
        for (const h of hashesOf(r)) hashes.add(h);
        for (const s of siblingLists[i]!) if (s.id !== r.id && s.hash) hashes.add(s.hash);
      });
      const list = [...hashes];
      const found = await calls.run(gateway.getReceipts(list as Hex[]));
      const byHash = new Map(list.map((h, i) => [h, found[i] ?? null]));
      const heights = [...new Set(found.filter((x): x is EvmReceipt => x !== null).map((x) => x.blockNumber))].filter((h) => !canonical.has(h));
      if (heights.length) {
        const more = await calls.run(gateway.getBlockHashes(heights));
        heights.forEach((h, i) => canonical.set(h, more[i] ?? null));
      }
      consumed.forEach((r, i) => {
        const own = firstReceipt(hashesOf(r), byHash)?.receipt ?? null;
        const prior = evidence.get(r.id)!;
        if (own) {
          evidence.set(r.id, { heads: prior.heads, receipt: own, canonicalHash: canonical.get(own.blockNumber) ?? null });
          return;
        }
        prior.siblings = siblingLists[i]!
          .filter((s) => s.id !== r.id && s.hash)
          .map((s) => {
            const receipt = byHash.get(s.hash!) ?? null;
            return { record: s, receipt, canonicalHash: receipt ? (canonical.get(receipt.blockNumber) ?? null) : null };
          });
      });
    } catch (error) {
      for (const r of consumed) verdicts.set(r.id, { kind: 'error', message: errorText(error) });
    }
  }
  records.forEach((r, i) => {
    if (verdicts.has(r.id)) return;
    const ev = evidence.get(r.id)!;
    const verdict = evaluateEvm(r, ev);
    // The attempt whose receipt this is (the record's own hash or one of its replacements).
    const winning = ev.receipt ? (hashesOf(r).find((h) => h.toLowerCase() === ev.receipt!.transactionHash.toLowerCase()) ?? r.hash!) : null;
    if (verdict.kind === 'resolve' && verdict.resolution.landed && r.autoRetry === true && ev.receipt) {
      verdict.resolution.monitoring = { state: 'resolved', chainOutcome: null, winningHash: winning, winningStatus: ev.receipt.status === 'success' ? 'confirmed' : 'reverted' };
    }
    if (verdict.kind === 'wait' && ev.receipt) {
      const receipt = ev.receipt;
      if (!fromCache[i] || ev.receipt !== receipts[i]) {
        // Seen now: keep it, so the next checks only need the heads until its block is final.
        verdict.receipt = { blockNumber: receipt.blockNumber.toString(), blockHash: receipt.blockHash, status: receipt.status, ...(winning !== r.hash ? { hash: winning! } : {}) };
      } else if (receipt.blockNumber <= ev.heads.finalized) {
        // Final but no longer canonical (a reorganisation): look the receipt up afresh next time.
        verdict.receipt = null;
      }
      if (verdict.receipt !== null) verdict.position = receipt.blockNumber;
    }
    verdicts.set(r.id, verdict);
  });
  return heads;
}

/** The record with its last attempt's blockhash and height: the expiry proof is about the attempt that could still land. */
function lastAttemptOf(r: TransactionRecord, attempts: TransactionAttempt[]): TransactionRecord {
  const last = attempts.at(-1);
  return last ? { ...r, recentBlockhash: last.recentBlockhash, lastValidBlockHeight: last.lastValidBlockHeight } : r;
}

/**
 * The Solana evidence of one network's records: statuses, then expiry proofs only where needed.
 * `rebuilds(r)`: the record's stored rebuilds (attempts.ts); the statuses of all its signatures are
 * read in the same batches, whichever has one is the record's, and the expiry proof is made for
 * its last attempt. Answers the finalized block height when it was read (null otherwise).
 */
export async function checkSolana(
  gateway: SolanaGateway,
  records: TransactionRecord[],
  now: Date,
  calls: Calls,
  verdicts: Map<string, Verdict>,
  rebuilds: (r: TransactionRecord) => TransactionAttempt[] = () => [],
): Promise<bigint | null> {
  const signaturesOf = (r: TransactionRecord) => [r.hash!, ...rebuilds(r).map((a) => a.hash)];
  /** Reads the statuses of every signature of `list`; per record, the first signature with one. */
  const readStatuses = async (list: TransactionRecord[]) => {
    const unique = [...new Set(list.flatMap(signaturesOf))];
    const found = await calls.run(gateway.getSignatureStatuses(unique));
    const byHash = new Map(unique.map((x, i) => [x, found[i] ?? null]));
    return list.map((r) => {
      const signature = signaturesOf(r).find((h) => byHash.get(h));
      return signature ? { signature, status: byHash.get(signature)! } : null;
    });
  };
  const winners = new Map<string, string>();
  let finalizedHeight: bigint | null = null;
  let statuses: (SolanaSignatureStatus | null)[];
  try {
    const found = await readStatuses(records);
    found.forEach((f, i) => f && winners.set(records[i]!.id, f.signature));
    statuses = found.map((f) => f?.status ?? null);
  } catch (error) {
    for (const r of records) verdicts.set(r.id, { kind: 'error', message: errorText(error) });
    return null;
  }
  const proven = new Map(records.map((r) => [r.id, lastAttemptOf(r, rebuilds(r))]));
  const evidence = new Map<string, SolanaEvidence>(records.map((r, i) => [r.id, { status: statuses[i] ?? null }]));
  const unknown = records.filter((_, i) => !statuses[i]).map((r) => proven.get(r.id)!);
  if (unknown.length > 0) {
    // Expiry proofs, for signatures the node does not know.
    const proofFailed = new Set<string>();
    const byHeight = unknown.filter((r) => !r.nonceAccount && r.lastValidBlockHeight !== null);
    const byBlockhash = unknown.filter((r) => !r.nonceAccount && r.lastValidBlockHeight === null && r.recentBlockhash);
    const byNonce = unknown.filter((r) => r.nonceAccount && r.recentBlockhash);
    const tasks: Promise<void>[] = [];
    if (byHeight.length) {
      tasks.push(
        calls.run(gateway.getFinalizedBlockHeight()).then(
          (height) => ((finalizedHeight = height), byHeight.forEach((r) => (evidence.get(r.id)!.finalizedHeight = height))),
          (error) => byHeight.forEach((r) => (proofFailed.add(r.id), verdicts.set(r.id, { kind: 'error', message: errorText(error) }))),
        ),
      );
    }
    for (const r of byBlockhash) {
      tasks.push(
        calls.run(gateway.isBlockhashValid(r.recentBlockhash!)).then(
          (valid) => void (evidence.get(r.id)!.blockhashValid = valid),
          (error) => void (proofFailed.add(r.id), verdicts.set(r.id, { kind: 'error', message: errorText(error) })),
        ),
      );
    }
    for (const r of byNonce) {
      tasks.push(
        calls.run(gateway.getNonceAccount(r.nonceAccount!)).then(
          (state) => void (evidence.get(r.id)!.durableNonce = state?.nonce ?? null),
          (error) => void (proofFailed.add(r.id), verdicts.set(r.id, { kind: 'error', message: errorText(error) })),
        ),
      );
    }
    await Promise.all(tasks);
    // A proof read after the status: re-read the status of every signature of every record the proof
    // would fail, so a transaction (any attempt) that landed between the two reads is seen.
    const candidates = unknown.filter((r) => {
      if (proofFailed.has(r.id)) return false;
      const v = evaluateSolana(r, evidence.get(r.id)!, now);
      return v.kind === 'resolve' && (r.nonceAccount !== null || r.lastValidBlockHeight !== null);
    });
    if (candidates.length > 0) {
      try {
        const again = await readStatuses(candidates);
        candidates.forEach((r, i) => {
          evidence.get(r.id)!.status = again[i]?.status ?? null;
          if (again[i]) winners.set(r.id, again[i]!.signature);
        });
      } catch (error) {
        for (const r of candidates) verdicts.set(r.id, { kind: 'error', message: errorText(error) });
      }
    }
  }
  for (const r of records) {
    if (verdicts.has(r.id)) continue;
    const ev = evidence.get(r.id)!;
    const verdict = evaluateSolana(proven.get(r.id)!, ev, now);
    if (verdict.kind === 'resolve' && verdict.resolution.landed && r.autoRetry === true && ev.status) {
      // The attempt that landed (the record's own signature or one of its rebuilds).
      verdict.resolution.monitoring = { state: 'resolved', chainOutcome: null, winningHash: winners.get(r.id) ?? r.hash, winningStatus: verdict.resolution.status === 'confirmed' ? 'confirmed' : 'reverted' };
    }
    if (verdict.kind === 'wait' && ev.status) verdict.position = ev.status.slot;
    verdicts.set(r.id, verdict);
  }
  return finalizedHeight;
}
