/**
 * The worker thread of one party's threshold ECDSA (DKLs23) presigning (dkls-presign-host.ts starts
 * it): the message-independent rounds' computation runs here, off the event loop of the process
 * that answers requests. It receives a share's plaintext encoding, decodes and checks it here (the
 * curve arithmetic of decoding too), keeps the `KeyShare` and the presigning party under a key it
 * chooses, and answers protocol messages. Once the rounds are done it moves the presignature out
 * (`Presignature.export`, which consumes this copy) with the share's public part, and wipes the
 * share: the message-dependent round is cheap and runs where the signature is asked for, so that
 * it never waits behind another presignature's rounds. Every entry is wiped when it finishes,
 * aborts, is dropped, or the thread exits.
 */
import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { KeyShare, presignParty, ThresholdEcdsaError, type Party, type Presignature } from '@wallet/threshold-ecdsa';
import type { PresignReply, PresignRequest } from './dkls-presign-host.ts';

interface Entry {
  share: KeyShare;
  party: Party<Presignature>;
}

const entries = new Map<string, Entry>();

// On Linux a thread has its own nice value: the pool's thread (nice 10) yields the cores to the
// event loop and to the on-demand thread (nice 0), so that refills never delay a signature that is
// asked for. Best effort elsewhere.
const nice = typeof (workerData as { nice?: unknown } | null)?.nice === 'number' ? (workerData as { nice: number }).nice : 0;
if (nice !== 0) {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // not Linux, or not allowed: the thread runs at the process's priority
  }
}

function wipe(entry: Entry): void {
  entry.party.abandon();
  entry.share.wipe();
}

function take(key: string): Entry {
  const entry = entries.get(key);
  if (!entry) throw new ThresholdEcdsaError('SESSION_CLOSED', 'threshold-ecdsa: no such presigning session in this thread');
  return entry;
}

/** Steps the party through the peer's messages; answers this side's messages, and once done the presignature (moved out) with the share's public part. */
function run(key: string, entry: Entry, messages: Uint8Array[], out: Uint8Array[]) {
  for (const message of messages) {
    const next = entry.party.step(message);
    if (next) out.push(next);
  }
  if (!entry.party.done) return { key, messages: out, made: null };
  entries.delete(key);
  try {
    const { share } = entry;
    const made = { presignature: entry.party.result().export(), partyId: share.partyId, verifyingShares: share.verifyingShares.map((y) => Uint8Array.from(y)), publicKey: Uint8Array.from(share.publicKey) };
    return { key, messages: out, made };
  } finally {
    wipe(entry);
  }
}

function open(request: Extract<PresignRequest, { op: 'open' }>) {
  let share: KeyShare;
  try {
    share = KeyShare.decode(request.share);
  } finally {
    request.share.fill(0);
  }
  if (share.partyId !== request.partyId || share.otSetupId !== request.otSetupId || !Buffer.from(share.publicKey).equals(Buffer.from(request.publicKey))) {
    share.wipe();
    throw new ThresholdEcdsaError('INVALID_INPUT', 'threshold-ecdsa: the share is of another participant, key or OT setup');
  }
  let party: Party<Presignature>;
  try {
    party = presignParty(share);
  } catch (error) {
    share.wipe();
    throw error;
  }
  const key = randomBytes(16).toString('hex');
  const entry: Entry = { share, party };
  entries.set(key, entry);
  return run(key, entry, request.messages, request.first ? [party.first()] : []);
}

function handle(request: PresignRequest): unknown {
  switch (request.op) {
    case 'open':
      return open(request);
    case 'step':
      return run(request.key, take(request.key), request.messages, []);
    case 'drop': {
      const entry = entries.get(request.key);
      entries.delete(request.key);
      if (entry) wipe(entry);
      return null;
    }
    case 'count':
      return entries.size;
  }
}

parentPort!.on('message', (request: PresignRequest) => {
  let reply: PresignReply;
  try {
    reply = { id: request.id, ok: true, value: handle(request) };
  } catch (error) {
    // Any failure of a step ends its entry: an aborted session must not continue.
    if ('key' in request) {
      const entry = entries.get(request.key);
      entries.delete(request.key);
      if (entry) wipe(entry);
    }
    const code = error instanceof ThresholdEcdsaError ? error.code : 'INTERNAL';
    reply = { id: request.id, ok: false, code, message: error instanceof ThresholdEcdsaError ? error.message : 'threshold-ecdsa: presigning thread failure' };
  }
  parentPort!.postMessage(reply);
  // postMessage copied it; this copy goes.
  if (reply.ok) (reply.value as { made?: { presignature: Uint8Array } | null } | null)?.made?.presignature.fill(0);
});

process.on('exit', () => {
  for (const entry of entries.values()) wipe(entry);
  entries.clear();
});
parentPort!.postMessage({ id: 0, ok: true, value: 'ready' } satisfies PresignReply);
