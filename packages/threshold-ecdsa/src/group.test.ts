import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { CheckFailed } from './errors.ts';
import { mulBase, mulPoint, pointMultiplyBuild } from './group.ts';
import * as S from './scalar.ts';

/** The point multiplications the protocol runs on secret scalars, against @noble/curves. */
describe('point multiplications by secret scalars', () => {
  it('run on the native libsecp256k1 build here (ecmult_gen / ecmult_const, constant time), not the variable-time fallback', () => {
    expect(pointMultiplyBuild()).toBe('native');
  });

  it('k·G and k·P agree with @noble/curves, and refuse k = 0', () => {
    for (let i = 0; i < 50; i++) {
      const k = S.random();
      const kb = S.toBytes(k);
      const P = secp256k1.Point.BASE.multiply(BigInt('0x' + Buffer.from(randomBytes(32)).toString('hex')) % secp256k1.Point.CURVE().n || 1n);
      expect(Buffer.from(mulBase(k)).equals(Buffer.from(secp256k1.getPublicKey(kb, true)))).toBe(true);
      const want = P.multiply(BigInt('0x' + Buffer.from(kb).toString('hex'))).toBytes(true);
      expect(Buffer.from(mulPoint(P.toBytes(true), k)).equals(Buffer.from(want))).toBe(true);
    }
    expect(() => mulBase(S.zero())).toThrow(new CheckFailed('scalar out of range'));
    expect(() => mulPoint(mulBase(S.fromSmall(5)), S.zero())).toThrow(new CheckFailed('point multiply'));
  });
});
