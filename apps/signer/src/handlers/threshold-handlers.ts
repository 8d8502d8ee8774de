/**
 * The signer's side of threshold ECDSA (DKLs23) 2-of-3 on secp256k1: participant 2; the API is
 * participant 1 and starts every exchange; participant 3 is the offline recovery key.
 *
 * - Key generation (5 exchanges): DKG then OT setup; the last exchange seals participant 2's share
 *   (service KEK) and its contribution to participant 3 (recovery key), and records the OT setup as
 *   the wallet's current one.
 * - Conversion of an isolated wallet (`importStart`, then 3 `step`s): the XOR halves of the current
 *   epoch are joined here once and dealt into DKLs23 shares at the next epoch (dkls-import.ts);
 *   participant 1's share goes to the API in the clear over mTLS, participant 3's sealed to the
 *   recovery key; then an OT setup in which this side speaks first (the API has no share before the
 *   answer); its last exchange seals participant 2's share and records the OT setup. The halves sign
 *   until the API has stored the new shares and `commitEpoch` retires them.
 * - Share refresh (`refreshStart`, then 4 `step`s): from a share of the current epoch, a refresh by a
 *   sharing of zero keeping the public key, then an OT setup for the new share; the last exchange seals
 *   it at the next epoch with this side's contribution to participant 3 and records the new OT setup,
 *   so the old shares no longer sign (and `commitEpoch` retires their epoch once the API stored the new).
 * - OT setup (4 exchanges) for an existing share, of the current epoch: fresh correlations, the new
 *   setup recorded; the old sealed shares no longer sign.
 * - A signature (3 exchanges): the share opens only of the current epoch and the current, usable OT
 *   setup; two message-independent exchanges make a presignature; in the last the signer derives
 *   the digest from the operation and input itself, refuses one that differs from the API's,
 *   applies its limits, combines and verifies the signature, records the presignature used and
 *   logs the signature (both durable), and only then answers its final message. A presignature the
 *   API asked for its pool (`signStart` with `pool: true`, presign-pool.ts) waits under bounds of its
 *   own and signs only while its OT setup and epoch are still the wallet's current usable ones.
 * - Any failed protocol check aborts the session the same way (409 `DKLS_ABORTED`, no detail) and,
 *   for OT setup and signing, marks the wallet's OT setup unusable first.
 *
 * The protocols' rounds (key generation, OT setup, refresh, presigning) run in the presigning threads
 * (dkls-party-host.ts, dkls-presign-host.ts), never on this event loop, which seals the outcome from
 * the bytes the thread answers. Sessions live only in memory, each exchange under a new single-use
 * id (a ceremony's or a presignature's thread entry dropped when its session expires or is
 * abandoned); a lost session fails the request, which starts again (new nonces, a new presignature).
 */
import {
  dklsDkgContext,
  dklsParams,
  dklsRefreshContext,
  dklsShareSetupId,
  DKLS_METHODS,
  encodeVaultValue,
  openDklsSharePlain,
  parseSigningInput,
  plainOf,
  type EncryptedShare,
  type RecoveryItem,
  sealDklsShareBytes,
  sealToRecovery,
  secp256k1KeyOfWallet,
  type VaultWallet,
} from '@wallet/domain';
import { ThresholdEcdsaError, type Presignature } from '@wallet/threshold-ecdsa';
import { dealXorWallet } from '@wallet/domain/custody/dkls-import.ts';
import {
  threadKeygenParty,
  threadOtSetupParty,
  threadRefreshParty,
  type AsyncParty,
  type KeygenMade,
  type OtSetupMade,
  type PartyMade,
  type RefreshMade,
} from '@wallet/domain/custody/dkls-party-host.ts';
import { sharedPoolPresignThread, sharedPresignThread, type PresignThread } from '@wallet/domain/custody/dkls-presign-host.ts';
import { crashAt } from '../crash-at.ts';
import { SignerError } from '../server/errors.ts';
import type { SignerHandler } from '../server/server.ts';
import type { ThresholdStore } from '../store/threshold-store.ts';
import { admitSignature, assertCurrentEpoch, capturePayload, domainCall, parseParams } from './rpc.ts';
import type { FrostHandlerDeps } from './frost-handlers.ts';
import { createSignerPresignPool, type PooledSession, type SignerPresignPoolOptions } from './presign-pool.ts';
import { createSessionTable } from './sessions.ts';

/** The FROST handlers' dependencies and the threshold store. */
export interface ThresholdHandlerDeps extends FrostHandlerDeps {
  threshold: ThresholdStore;
  /** The presigning thread (default: this process's two, on demand and the pool's at nice 10; a given one serves both). */
  presignThread?: PresignThread;
  /** Bounds of the pooled presignatures (default 4 per wallet, 256 in all, 10 minutes each). */
  presignPool?: SignerPresignPoolOptions;
}

type Session =
  | { kind: 'keygen'; party: AsyncParty<KeygenMade> }
  | { kind: 'ot-setup'; party: AsyncParty<OtSetupMade>; epoch: number; otSetupId: string }
  | { kind: 'import'; party: AsyncParty<OtSetupMade>; epoch: number }
  | { kind: 'refresh'; party: AsyncParty<RefreshMade>; epoch: number }
  | ({ kind: 'presign'; pooled: boolean; key: string } & Made)
  | ({ kind: 'presigned'; presignature: Presignature } & Made);

/** What a presignature was made with. */
interface Made {
  publicKey: Uint8Array;
  otSetupId: string;
  epoch: number;
}

const aborted = () => new SignerError('DKLS_ABORTED', 'threshold-ecdsa: session aborted', 409);

/** A finished key generation, conversion, refresh or OT setup: the new share's bytes, and what participant 3 gets of it (`party.abandon()` wipes both). */
function finished(session: Exclude<Session, Made>): { made: PartyMade; item: RecoveryItem | null } {
  if (session.kind === 'keygen') {
    const made = session.party.result();
    return { made, item: { kind: 'ecdsa-contribution', contribution: made.offline } };
  }
  if (session.kind === 'refresh') {
    const made = session.party.result();
    return { made, item: { kind: 'ecdsa-refresh', contribution: made.offline } };
  }
  return { made: session.party.result(), item: null };
}

/** The wallet's key, refused as a 400 when its stored key and address disagree. */
function publicKeyOf(wallet: VaultWallet): Uint8Array {
  try {
    return secp256k1KeyOfWallet(wallet);
  } catch (error) {
    throw new SignerError('INVALID_PARAMS', (error as Error).message, 400);
  }
}

export function createThresholdHandlers(deps: ThresholdHandlerDeps): Record<string, SignerHandler> {
  const { keks, recovery, epochs, log, threshold } = deps;
  const onDemandThread = deps.presignThread ?? sharedPresignThread();
  const poolThread = deps.presignThread ?? sharedPoolPresignThread();
  /** A pooled presignature's rounds run in the lower-priority thread: they never delay one asked for now. */
  const threadOf = (pooled: boolean) => (pooled ? poolThread : onDemandThread);
  const wipeSession = (session: Session) => {
    if (session.kind === 'presign') void threadOf(session.pooled).drop(session.key).catch(() => undefined);
    else if (session.kind === 'presigned') session.presignature.discard();
    else session.party.abandon();
  };
  const sessions = createSessionTable<Session>({ ttlMs: deps.sessionTtlMs ?? 30_000, max: 1000, wipe: wipeSession });
  const pool = createSignerPresignPool((pooled) => pooled.presignature.discard(), deps.presignPool);

  /** A presigning round in the thread, or the last round here; an abort marks the wallet's OT setup unusable and answers one code. */
  async function presignStep<T>(walletId: string, made: Made, run: () => T | Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof ThresholdEcdsaError)) throw error;
      if (error.code === 'OT_UNUSABLE') throw new SignerError('DKLS_OT_UNUSABLE', "this wallet's OT correlations are unusable; run a fresh OT setup", 409, { walletId });
      if (error.code !== 'ABORTED') throw new SignerError('DKLS_SESSION_STATE', 'the presignature of this session is gone; start again', 409);
      await threshold.markUnusable(walletId, made.otSetupId);
      throw aborted();
    }
  }

  /** A presignature signs only under the wallet's current, usable OT setup and share epoch: a refresh, a renewal, an abort or a conversion since retires it. */
  function assertPresignatureCurrent(walletId: string, ref: Made): void {
    const current = threshold.setupOf(walletId);
    if (!current || current.otSetupId !== ref.otSetupId || !current.usable || epochs.epochOf(walletId) > ref.epoch) {
      throw new SignerError('DKLS_PRESIGNATURE_STALE', "this presignature was made with shares that are no longer the wallet's current ones; it was dropped", 409, { walletId });
    }
  }

  /**
   * Runs a step of the party in the thread; an abort wipes the session (the thread's entry is gone
   * already), marks the OT setup unusable where it has one, and answers one code. `opening`: the step
   * that hands the share over, whose refusal of it (INVALID_INPUT) is the share's, as when it opened here.
   */
  async function advance(walletId: string, session: Exclude<Session, Made>, run: () => Promise<Uint8Array[]>, opening = false): Promise<Uint8Array[]> {
    try {
      return await run();
    } catch (error) {
      wipeSession(session);
      if (!(error instanceof ThresholdEcdsaError)) throw error;
      if (opening && error.code === 'INVALID_INPUT') throw new SignerError('SHARE_REFUSED', "the sealed signer share does not open for this wallet's key", 400);
      // A key generation, a conversion or a refresh uses no OT correlations of the wallet's; nothing of it was stored.
      if ('otSetupId' in session) await threshold.markUnusable(walletId, session.otSetupId);
      throw aborted();
    }
  }

  /** The share the signer signs or renews with: its role, the current epoch, and (unless renewing) the current usable OT setup. */
  function checkShare(wallet: VaultWallet, sealed: Parameters<typeof openDklsSharePlain>[3], purpose: 'sign' | 'ot-setup'): string {
    assertCurrentEpoch(epochs, wallet.id, [sealed.epoch]);
    const otSetupId = dklsShareSetupId(sealed);
    if (otSetupId === null) throw new SignerError('SHARE_REFUSED', 'the sealed signer share has no OT setup', 400);
    if (purpose === 'sign') {
      const current = threshold.setupOf(wallet.id);
      if (!current || current.otSetupId !== otSetupId) {
        throw new SignerError('DKLS_OT_SETUP_RETIRED', "the sealed share's OT setup is not this wallet's current one; use the current shares", 409, { walletId: wallet.id });
      }
      if (!current.usable) throw new SignerError('DKLS_OT_UNUSABLE', "an aborted session made this wallet's OT setup unusable; run a fresh OT setup", 409, { walletId: wallet.id });
    }
    return otSetupId;
  }

  /** The share's plaintext bytes for the thread, which decodes and checks them (participant 2, the key, the OT setup). */
  function openShare(wallet: VaultWallet, sealed: Parameters<typeof openDklsSharePlain>[3], purpose: 'ot-setup') {
    const otSetupId = checkShare(wallet, sealed, purpose);
    try {
      return { share: openDklsSharePlain(keks, wallet.id, 'dkls-signer', sealed, publicKeyOf(wallet)), otSetupId };
    } catch {
      throw new SignerError('SHARE_REFUSED', "the sealed signer share does not open for this wallet's key", 400);
    }
  }

  return {
    [DKLS_METHODS.keygenStart]: async (params) => {
      const { walletId, messages } = parseParams(dklsParams.keygenStart, params);
      const party = threadKeygenParty(onDemandThread, 2, dklsDkgContext(walletId));
      const session: Session = { kind: 'keygen', party };
      const out = await advance(walletId, session, () => party.first(messages));
      return encodeVaultValue({ sessionId: sessions.put(walletId, session), messages: out, done: false });
    },

    [DKLS_METHODS.importStart]: async (params) => {
      const { wallet, shares } = parseParams(dklsParams.importStart, params);
      if (!shares.some((s) => s.role === 'user') || !shares.some((s) => s.role === 'service')) {
        throw new SignerError('INVALID_PARAMS', 'a conversion takes the user and service halves', 400);
      }
      assertCurrentEpoch(epochs, wallet.id, shares.map((s) => s.epoch));
      const publicKey = publicKeyOf(wallet);
      // The new shares retire the halves: sealed at the next epoch, which commitEpoch records once they are stored.
      const epoch = Math.max(epochs.epochOf(wallet.id), ...shares.map((s) => s.epoch)) + 1;
      let dealt;
      try {
        dealt = dealXorWallet(keks, recovery, wallet.id, shares as EncryptedShare[], publicKey, epoch);
      } catch {
        throw new SignerError('SHARE_REFUSED', "the wallet's halves do not open or do not join to its key", 400);
      }
      try {
        let plain: Uint8Array;
        try {
          plain = dealt.signerShare.encode();
        } finally {
          dealt.signerShare.wipe();
        }
        const party = threadOtSetupParty(onDemandThread, { plain, partyId: 2, publicKey, otSetupId: null });
        const session: Session = { kind: 'import', party, epoch };
        const first = await advance(wallet.id, session, () => party.first());
        const sessionId = sessions.put(wallet.id, session);
        crashAt('dkls-import-dealt');
        return encodeVaultValue({ sessionId, messages: first, done: false, apiShare: dealt.apiShare, recoveryShare: dealt.recoveryShare, epoch });
      } finally {
        dealt.apiShare.fill(0);
      }
    },

    [DKLS_METHODS.otSetupStart]: async (params) => {
      const { wallet, share: sealed, messages } = parseParams(dklsParams.otSetupStart, params);
      const { share, otSetupId } = openShare(wallet, sealed, 'ot-setup');
      const party = threadOtSetupParty(onDemandThread, share);
      const session: Session = { kind: 'ot-setup', party, epoch: sealed.epoch, otSetupId };
      const out = await advance(wallet.id, session, () => party.first(messages), true);
      return encodeVaultValue({ sessionId: sessions.put(wallet.id, session), messages: out, done: false });
    },

    [DKLS_METHODS.refreshStart]: async (params) => {
      const { wallet, share: sealed, messages } = parseParams(dklsParams.refreshStart, params);
      // The current epoch's share; its OT setup need not be usable (the refresh makes a new one).
      const { share } = openShare(wallet, sealed, 'ot-setup');
      const epoch = sealed.epoch + 1;
      const party = threadRefreshParty(onDemandThread, share, dklsRefreshContext(wallet.id, epoch));
      const session: Session = { kind: 'refresh', party, epoch };
      const out = await advance(wallet.id, session, () => party.first(messages), true);
      return encodeVaultValue({ sessionId: sessions.put(wallet.id, session), messages: out, done: false });
    },

    [DKLS_METHODS.signStart]: async (params) => {
      const { wallet, share: sealed, messages, pool: pooled } = parseParams(dklsParams.signStart, params);
      const otSetupId = checkShare(wallet, sealed, 'sign');
      const publicKey = publicKeyOf(wallet);
      let plain: Uint8Array;
      try {
        plain = openDklsSharePlain(keks, wallet.id, 'dkls-signer', sealed, publicKey).plain;
      } catch {
        throw new SignerError('SHARE_REFUSED', "the sealed signer share does not open for this wallet's key", 400);
      }
      const made: Made = { publicKey, otSetupId, epoch: sealed.epoch };
      const round = await presignStep(wallet.id, made, () => threadOf(pooled === true).open({ share: plain, partyId: 2, publicKey, otSetupId, first: true, messages }));
      return encodeVaultValue({ sessionId: sessions.put(wallet.id, { kind: 'presign', pooled: pooled === true, key: round.key, ...made }), messages: round.messages, done: false });
    },

    [DKLS_METHODS.step]: async (params) => {
      const { sessionId, walletId, messages } = parseParams(dklsParams.step, params);
      const session = sessions.take(sessionId, walletId);
      if (session.kind === 'presigned') {
        wipeSession(session);
        throw new SignerError('DKLS_SESSION_STATE', 'this session waits for the digest; it was dropped', 409);
      }
      if (session.kind === 'presign') {
        const { publicKey, otSetupId, epoch } = session;
        const round = await presignStep(walletId, session, () => threadOf(session.pooled).step(session.key, messages));
        const { presignature } = round;
        if (presignature === null) return encodeVaultValue({ sessionId: sessions.put(walletId, session), messages: round.messages, done: false, sealed: null });
        const made: Made = { publicKey, otSetupId, epoch };
        const nextId = session.pooled ? pool.put({ walletId, presignature, ...made }) : sessions.put(walletId, { kind: 'presigned', presignature, ...made });
        crashAt('dkls-presigned');
        return encodeVaultValue({ sessionId: nextId, messages: round.messages, done: true, sealed: null });
      }
      const out = await advance(walletId, session, () => session.party.step(messages));
      if (!session.party.done) return encodeVaultValue({ sessionId: sessions.put(walletId, session), messages: out, done: false, sealed: null });

      const { made, item } = finished(session);
      try {
        const epoch = session.kind === 'keygen' ? epochs.epochOf(walletId) : session.epoch;
        const signerShare = sealDklsShareBytes(keks.current('service'), walletId, 'dkls-signer', plainOf(made), epoch);
        const recoveryShare = item ? sealToRecovery(recovery, walletId, 'recovery-signer', made.publicKey, epoch, item) : null;
        const { otSetupId } = made;
        await threshold.recordSetup(walletId, otSetupId);
        if (session.kind === 'import') crashAt('dkls-import-setup');
        if (session.kind === 'refresh') crashAt('dkls-refresh-setup');
        return encodeVaultValue({ sessionId, messages: out, done: true, sealed: { signerShare, recoveryShare, publicKey: made.publicKey, otSetupId } });
      } finally {
        // Wipes the new share's bytes and participant 3's secret.
        session.party.abandon();
      }
    },

    [DKLS_METHODS.signFinish]: async (params, context) => {
      const request = parseParams(dklsParams.signFinish, params);
      const { wallet } = request;
      const pooled = pool.take(request.sessionId, wallet.id);
      const session: PooledSession | Session = pooled ?? sessions.take(request.sessionId, wallet.id);
      if ('kind' in session && session.kind !== 'presigned') {
        wipeSession(session);
        throw new SignerError('DKLS_SESSION_STATE', 'this session has no presignature yet; it was dropped', 409);
      }
      const ref = session as PooledSession;
      try {
        assertPresignatureCurrent(wallet.id, ref);
        const publicKey = publicKeyOf(wallet);
        if (!Buffer.from(publicKey).equals(Buffer.from(ref.publicKey))) throw new SignerError('SHARE_REFUSED', 'the session is of another key', 400);
        const input = await domainCall(async () => parseSigningInput(wallet.type, request.operation, request.input));
        const { payload: digest, logDigest } = await capturePayload(wallet, request.operation, input, publicKey, 'secp256k1');
        if (!Buffer.from(digest).equals(Buffer.from(request.digest))) {
          throw new SignerError('DKLS_DIGEST_MISMATCH', 'the digest to sign is not the one the operation signs for this input', 400);
        }
        await admitSignature(deps, wallet, request.operation, input);
        const pending = ref.presignature.prepareFinalMessage(digest);
        // This side's final message leaves only in the answer: the signature is checked first, the
        // presignature claimed (a second use refused from here on), then the signature's log line,
        // which is also the durable record of the presignature's use, flushed before the answer.
        await presignStep(wallet.id, ref, () => pending.finish(request.message));
        threshold.claimPresignature(pending.presignatureId);
        await log.appendSignature({ walletId: wallet.id, digest: logDigest, requestId: request.requestId ?? context.requestId, action: request.action, presignature: pending.presignatureId });
        crashAt('dkls-logged');
        return encodeVaultValue({ message: pending.message });
      } finally {
        ref.presignature.discard();
      }
    },
  };
}
