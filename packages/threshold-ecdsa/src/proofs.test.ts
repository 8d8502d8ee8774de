import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Reader, Writer } from './codec.ts';
import { CheckFailed } from './errors.ts';
import { mulBase } from './group.ts';
import { FISCHLIN_REPETITIONS, PROOF_BYTES, proveDlog, readProof, verifyDlog, writeProof, type DlogProof } from './proofs.ts';
import * as S from './scalar.ts';

/** Fischlin proofs of knowledge of a discrete log: each corrupted part of a proof is refused. */
const sid = randomBytes(32);
const x = S.random();
const X = mulBase(x);
const proof = proveDlog('dkg', sid, 2, 1, x, X);
const refused = (p: DlogProof, purpose = 'dkg', s = sid, prover: 1 | 2 = 2, verifier: 1 | 2 = 1, Xp = X) =>
  expect(() => verifyDlog(purpose, s, prover, verifier, Xp, p)).toThrow(new CheckFailed('proof of knowledge'));
const withRepetition = (i: number, part: Partial<{ K: Uint8Array; e: number; z: S.Scalar }>): DlogProof => ({
  commitments: proof.commitments.map((K, j) => (j === i && part.K ? part.K : K)),
  challenges: proof.challenges.map((e, j) => (j === i && part.e !== undefined ? part.e : e)),
  responses: proof.responses.map((z, j) => (j === i && part.z ? part.z : z)),
});

describe('proof of knowledge of a discrete log (Fischlin)', () => {
  it('an honest proof verifies, encodes to PROOF_BYTES and decodes to the same proof', () => {
    verifyDlog('dkg', sid, 2, 1, X, proof);
    const bytes = writeProof(new Writer(), proof).finish();
    expect(bytes.length).toBe(PROOF_BYTES);
    const r = new Reader(bytes);
    const back = readProof(r);
    r.end();
    verifyDlog('dkg', sid, 2, 1, X, back);
    expect(Buffer.from(writeProof(new Writer(), back).finish()).equals(Buffer.from(bytes))).toBe(true);
  });

  it('refuses a proof bound to another purpose, session, prover/verifier order or public key', () => {
    refused(proof, 'ot-base');
    refused(proof, 'dkg', randomBytes(32));
    refused(proof, 'dkg', sid, 1, 2);
    refused(proof, 'dkg', sid, 2, 1, mulBase(S.random()));
  });

  it('refuses each corrupted repetition: commitment, challenge, response', () => {
    for (const i of [0, FISCHLIN_REPETITIONS - 1]) {
      refused(withRepetition(i, { K: mulBase(S.random()) }));
      refused(withRepetition(i, { e: (proof.challenges[i]! + 1) & 0xffff }));
      refused(withRepetition(i, { z: S.add(proof.responses[i]!, S.fromSmall(1)) }));
      refused(withRepetition(i, { z: S.zero() }));
    }
  });

  it('refuses a repetition that satisfies z·G = K + e·X but not the work condition (the proof of work is checked)', () => {
    // e + 1 with z + x keeps the Schnorr equation; its hash has b = 8 leading zero bits only by chance (2^-8),
    // so take the first repetition where it does not
    const i = proof.challenges.findIndex((e) => e < 0xffff);
    const shifted = withRepetition(i, { e: proof.challenges[i]! + 1, z: S.add(proof.responses[i]!, x) });
    let tries = 0;
    let p = shifted;
    while (tries++ < 4) {
      try {
        verifyDlog('dkg', sid, 2, 1, X, p);
      } catch (e) {
        expect(e).toEqual(new CheckFailed('proof of knowledge'));
        return;
      }
      p = withRepetition(i, { e: p.challenges[i]! + 1, z: S.add(p.responses[i]!, x) });
    }
    throw new Error('four consecutive challenges all met the work condition');
  });

  it('refuses a Fiat–Shamir-style proof with fewer repetitions, and one valid repetition copied onto every index', () => {
    refused({ commitments: proof.commitments.slice(1), challenges: proof.challenges.slice(1), responses: proof.responses.slice(1) });
    // the same valid repetition everywhere: each index's hash differs, so all 16 pass only with probability 2^-128
    const n = FISCHLIN_REPETITIONS;
    refused({ commitments: Array(n).fill(proof.commitments[0]), challenges: Array(n).fill(proof.challenges[0]), responses: Array(n).fill(proof.responses[0]) });
  });
});
