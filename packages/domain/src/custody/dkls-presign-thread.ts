/**
 * The worker thread of one party's threshold ECDSA (DKLs23) protocols (dkls-presign-host.ts starts
 * it): the computation of the presignatures' message-independent rounds and of the key ceremonies
 * (key generation, OT setup, refresh: dkls-party-thread.ts) runs here, off the event loop of the
 * process that answers requests. It receives a share's plaintext encoding, decodes and checks it here
 * (the curve arithmetic of decoding too), keeps the `KeyShare` and the party under a key it chooses,
 * and answers protocol messages. Once a presignature's rounds are done it moves the presignature out
 * (`Presignature.export`, which consumes this copy) with the share's public part, and wipes the
 * share: the message-dependent round is cheap and runs where the signature is asked for, so that
 * it never waits behind another presignature's rounds. A ceremony's outcome leaves as bytes (the new
 * share's encoding). Every entry is wiped when it finishes, aborts, is dropped, or the thread exits.
 */
import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { presignParty, ThresholdEcdsaError, type KeyShare, type Presignature } from '@wallet/threshold-ecdsa';
import { ceremonyEntry, decodeChecked, withShare, type Entry } from './dkls-party-thread.ts';
import type { PresignReply, PresignRequest } from './dkls-presign-host.ts';

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

function take(key: string): Entry {
  const entry = entries.get(key);
  if (!entry) throw new ThresholdEcdsaError('SESSION_CLOSED', 'threshold-ecdsa: no such presigning session in this thread');
  return entry;
}

interface Ran {
  value: { key: string; messages: Uint8Array[]; made: unknown };
  /** Secret bytes of the answer, wiped once posted (postMessage copied them). */
  secrets: Uint8Array[];
}

/** Steps the party through the peer's messages; answers this side's messages, and once done its outcome (the entry then wiped). */
function run(key: string, entry: Entry, messages: Uint8Array[], out: Uint8Array[]): Ran {
  for (const message of messages) {
    const next = entry.party.step(message);
    if (next) out.push(next);
  }
  if (!entry.party.done) return { value: { key, messages: out, made: null }, secrets: [] };
  entries.delete(key);
  try {
    const { value, secrets } = entry.made();
    return { value: { key, messages: out, made: value }, secrets };
  } finally {
    entry.wipe();
  }
}

/** A new entry runs its first messages; any failure there ends it too. */
function start(entry: Entry, first: boolean, messages: Uint8Array[]): Ran {
  const key = randomBytes(16).toString('hex');
  entries.set(key, entry);
  try {
    return run(key, entry, messages, first ? [entry.party.first()] : []);
  } catch (error) {
    entries.delete(key);
    entry.wipe();
    throw error;
  }
}

function presignEntry(request: Extract<PresignRequest, { op: 'open' }>): Entry {
  const share: KeyShare = decodeChecked(request.share, request);
  return withShare(share, () => {
    const party = presignParty(share);
    return {
      party,
      made() {
        const presignature = (party.result() as Presignature).export();
        const value = { presignature, partyId: share.partyId, verifyingShares: share.verifyingShares.map((y) => Uint8Array.from(y)), publicKey: Uint8Array.from(share.publicKey) };
        return { value, secrets: [presignature] };
      },
      wipe() {
        party.abandon();
        share.wipe();
      },
    };
  });
}

function handle(request: PresignRequest): Ran | { value: unknown; secrets: [] } {
  switch (request.op) {
    case 'open':
      return start(presignEntry(request), request.first, request.messages);
    case 'party':
      return start(ceremonyEntry(request.spec), request.first, request.messages);
    case 'step':
      return run(request.key, take(request.key), request.messages, []);
    case 'drop': {
      const entry = entries.get(request.key);
      entries.delete(request.key);
      entry?.wipe();
      return { value: null, secrets: [] };
    }
    case 'count':
      return { value: entries.size, secrets: [] };
  }
}

parentPort!.on('message', (request: PresignRequest) => {
  let reply: PresignReply;
  let secrets: Uint8Array[] = [];
  try {
    const ran = handle(request);
    secrets = ran.secrets;
    reply = { id: request.id, ok: true, value: ran.value };
  } catch (error) {
    // Any failure of a step ends its entry: an aborted session must not continue.
    if ('key' in request) {
      const entry = entries.get(request.key);
      entries.delete(request.key);
      entry?.wipe();
    }
    const code = error instanceof ThresholdEcdsaError ? error.code : 'INTERNAL';
    reply = { id: request.id, ok: false, code, message: error instanceof ThresholdEcdsaError ? error.message : 'threshold-ecdsa: presigning thread failure' };
  }
  try {
    parentPort!.postMessage(reply);
  } finally {
    // postMessage copied them; these copies go.
    for (const secret of secrets) secret.fill(0);
  }
});

process.on('exit', () => {
  for (const entry of entries.values()) entry.wipe();
  entries.clear();
});
parentPort!.postMessage({ id: 0, ok: true, value: 'ready' } satisfies PresignReply);
