/**
 * The key ceremonies of threshold ECDSA (DKLs23) as parties whose rounds run in the presigning thread
 * (dkls-party-thread.ts), so that neither the API's nor the signer's event loop computes them: key
 * generation, an OT setup for an existing share, a share refresh. The same step machine as the
 * library's `Party`, with each step a promise: `first` opens the thread's entry, `step` relays a
 * batch of the peer's messages in one round trip to the thread.
 *
 * A share goes to the thread as its plaintext encoding (the caller's copy wiped once sent); the
 * outcome comes back as bytes: the new share's encoding and public fields (seal it with
 * `sealDklsShareBytes`, which needs no decoding here) and the contribution to participant 3.
 * `abandon()` drops the thread's entry and wipes the outcome's secret bytes: call it in a `finally`.
 * A failed step has ended the thread's entry already, and rejects with the library's error code.
 */
import { ThresholdEcdsaError, type OfflineContribution, type RefreshContribution } from '@wallet/threshold-ecdsa';
import type { PartyRound, PresignThread } from './dkls-presign-host.ts';

import type { SharePlain } from './dkls-share.ts';

export type PartySpec =
  | { kind: 'keygen'; partyId: 1 | 2; context: Uint8Array }
  | { kind: 'ot-setup'; share: Uint8Array; partyId: 1 | 2; publicKey: Uint8Array; otSetupId: string | null }
  | { kind: 'refresh'; share: Uint8Array; partyId: 1 | 2; publicKey: Uint8Array; otSetupId: string | null; context: Uint8Array };

/** A finished ceremony: the new share's `KeyShare` encoding (secret) with its public fields, and participant 3's contribution (its secret part too). */
export interface PartyMade {
  share: Uint8Array;
  partyId: 1 | 2;
  publicKey: Uint8Array;
  otSetupId: string;
  offline: OfflineContribution | RefreshContribution | null;
}
export type KeygenMade = PartyMade & { offline: OfflineContribution };
export type RefreshMade = PartyMade & { offline: RefreshContribution };
export type OtSetupMade = PartyMade & { offline: null };

/** The library's `Party` with asynchronous steps, each taking and answering a batch of messages. */
export interface AsyncParty<R> {
  /** This side's m_0, then its answers to `peerMessages` (the peer's first messages, if it spoke first). */
  first(peerMessages?: Uint8Array[]): Promise<Uint8Array[]>;
  /** Consumes the peer's messages in order; answers this side's next ones. */
  step(peerMessages: Uint8Array[]): Promise<Uint8Array[]>;
  readonly done: boolean;
  /** The outcome once done; its bytes stay owned by the party (`abandon()` wipes them). */
  result(): R;
  /** Drops the thread's entry (if any) and wipes every secret this side holds of the run. */
  abandon(): void;
}

const closed = (message: string) => new ThresholdEcdsaError('SESSION_CLOSED', `threshold-ecdsa: ${message}`);

function wipeMade(made: PartyMade): void {
  made.share.fill(0);
  const offline = made.offline as { share?: Uint8Array; delta?: Uint8Array } | null;
  offline?.share?.fill(0);
  offline?.delta?.fill(0);
}

function threadParty<R extends PartyMade>(thread: PresignThread, spec: PartySpec): AsyncParty<R> {
  let key: string | null = null;
  let made: PartyMade | null = null;
  let started = false;
  let ended = false;
  let busy = false;

  const drop = () => {
    if (key !== null) void thread.drop(key).catch(() => undefined);
    key = null;
  };
  /** Relays one request; a failure has ended the thread's entry, an abandon meanwhile ends this run. */
  async function relay(send: () => Promise<PartyRound>): Promise<Uint8Array[]> {
    if (busy) throw closed('a step of this party is in flight');
    busy = true;
    let round: PartyRound;
    try {
      round = await send();
    } catch (error) {
      ended = true;
      key = null;
      throw error;
    } finally {
      busy = false;
    }
    key = round.made ? null : round.key;
    made = round.made;
    if (ended) {
      drop();
      if (made) wipeMade(made);
      made = null;
      throw closed('the party was abandoned');
    }
    return round.messages;
  }

  return {
    first(peerMessages = []) {
      if (started || ended) return Promise.reject(closed('first message already made'));
      started = true;
      return relay(() => thread.openParty({ spec, first: true, messages: peerMessages }));
    },
    async step(peerMessages) {
      if (peerMessages.length === 0) return [];
      if (!started || ended || made || key === null) throw closed('no step expects a message now');
      const at = key;
      return relay(() => thread.stepParty(at, peerMessages));
    },
    get done() {
      return made !== null;
    },
    result() {
      if (!made) throw closed('the protocol has not finished');
      return made as R;
    },
    abandon() {
      ended = true;
      if (!started && spec.kind !== 'keygen') spec.share.fill(0);
      if (!busy) drop();
      if (made) wipeMade(made);
    },
  };
}

/** Key generation (DKG then OT setup) in the thread. */
export function threadKeygenParty(thread: PresignThread, partyId: 1 | 2, context: Uint8Array): AsyncParty<KeygenMade> {
  return threadParty(thread, { kind: 'keygen', partyId, context });
}

/** A fresh OT setup for a share (the thread decodes and checks it; `plain` is wiped once sent, or by `abandon()`). */
export function threadOtSetupParty(thread: PresignThread, share: SharePlain): AsyncParty<OtSetupMade> {
  return threadParty(thread, { kind: 'ot-setup', share: share.plain, partyId: share.partyId, publicKey: share.publicKey, otSetupId: share.otSetupId });
}

/** A refresh of a share, then its OT setup, in the thread (as `threadOtSetupParty` for `plain`). */
export function threadRefreshParty(thread: PresignThread, share: SharePlain, context: Uint8Array): AsyncParty<RefreshMade> {
  return threadParty(thread, { kind: 'refresh', share: share.plain, partyId: share.partyId, publicKey: share.publicKey, otSetupId: share.otSetupId, context });
}
