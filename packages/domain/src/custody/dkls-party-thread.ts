/**
 * The key ceremonies of the threshold ECDSA (DKLs23) presigning thread (dkls-presign-thread.ts runs
 * them beside the presignatures, dkls-party-host.ts is the main thread's side): key generation (DKG
 * then OT setup), an OT setup for an existing share, and a share refresh (then its OT setup). Their
 * rounds (base OTs, Fischlin proofs) run here, off the event loop that answers requests.
 *
 * A share comes in as its plaintext encoding, decoded and checked here (participant, key, OT setup)
 * and the bytes wiped. Once the ceremony is done its outcome leaves as bytes: the new share's
 * encoding with its public fields, and the contribution to participant 3; those copies are wiped
 * once posted, and the entry (the party, the shares) at once.
 */
import { KeyShare, keygenParty, otSetupParty, refreshParty, ThresholdEcdsaError, type Party } from '@wallet/threshold-ecdsa';
import type { PartyMade, PartySpec } from './dkls-party-host.ts';

/** One protocol run held by the thread under a random key. */
export interface Entry {
  party: Party<unknown>;
  /** Once done: what goes back (copied out of the entry), and its secret bytes, wiped once posted. */
  made(): { value: unknown; secrets: Uint8Array[] };
  /** Wipes every secret of the run (the party's and the shares'). */
  wipe(): void;
}

/** Decodes a share's plaintext encoding (wiped whatever happens) and checks that it is the one announced. */
export function decodeChecked(bytes: Uint8Array, expected: { partyId: 1 | 2; publicKey: Uint8Array; otSetupId: string | null }): KeyShare {
  let share: KeyShare;
  try {
    share = KeyShare.decode(bytes);
  } finally {
    bytes.fill(0);
  }
  if (share.partyId !== expected.partyId || share.otSetupId !== expected.otSetupId || !Buffer.from(share.publicKey).equals(Buffer.from(expected.publicKey))) {
    share.wipe();
    throw new ThresholdEcdsaError('INVALID_INPUT', 'threshold-ecdsa: the share is of another participant, key or OT setup');
  }
  return share;
}

/** The new share's encoding and public fields (the encoding is a fresh copy: the caller lists it as a secret). */
function encoded(share: KeyShare): Omit<PartyMade, 'offline'> {
  return { share: share.encode(), partyId: share.partyId, publicKey: Uint8Array.from(share.publicKey), otSetupId: share.otSetupId! };
}

/** Builds the party, wiping the share if that fails. */
export function withShare(share: KeyShare, make: () => Entry): Entry {
  try {
    return make();
  } catch (error) {
    share.wipe();
    throw error;
  }
}

export function ceremonyEntry(spec: PartySpec): Entry {
  if (spec.kind === 'keygen') {
    const party = keygenParty(spec.partyId, spec.context);
    return {
      party,
      made() {
        const { share, offline } = party.result();
        const contribution = { sender: offline.sender, share: Uint8Array.from(offline.share), commitments: Uint8Array.from(offline.commitments) };
        const value: PartyMade = { ...encoded(share), offline: contribution };
        return { value, secrets: [value.share, contribution.share] };
      },
      wipe: () => party.abandon(),
    };
  }
  const share = decodeChecked(spec.share, spec);
  if (spec.kind === 'ot-setup') {
    return withShare(share, () => {
      const party = otSetupParty(share);
      return {
        party,
        made() {
          const value: PartyMade = { ...encoded(party.result()), offline: null };
          return { value, secrets: [value.share] };
        },
        wipe() {
          party.abandon();
          share.wipe();
        },
      };
    });
  }
  return withShare(share, () => {
    const party = refreshParty(share, spec.context);
    return {
      party,
      made() {
        const { share: refreshed, offline } = party.result();
        const contribution = { sender: offline.sender, delta: Uint8Array.from(offline.delta), commitment: Uint8Array.from(offline.commitment) };
        const value: PartyMade = { ...encoded(refreshed), offline: contribution };
        return { value, secrets: [value.share, contribution.delta] };
      },
      wipe() {
        party.abandon();
        share.wipe();
      },
    };
  });
}
