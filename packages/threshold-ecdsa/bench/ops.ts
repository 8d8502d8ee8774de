/**
 * Curve backends for what the protocol needs, measured side by side: fixed-base multiply, variable-base
 * multiply, point add (the native secp256k1 addon and tiny-secp256k1, both libsecp256k1; @noble/curves = JavaScript),
 * and BigInt scalar multiplication mod n. Run: npx tsx bench/ops.ts
 */
import { randomBytes } from 'node:crypto';
import * as ecc from 'tiny-secp256k1';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createRequire } from 'node:module';
import { N, bytesToBig, mul } from '../src/curve.ts';

interface Native {
  publicKeyCreate(k: Uint8Array, c: boolean): Uint8Array;
  ecdh(p: Uint8Array, k: Uint8Array, o: { hashfn: (x: Uint8Array, y: Uint8Array) => Uint8Array }, out: Uint8Array): Uint8Array;
}
const native = createRequire(import.meta.url)('secp256k1/bindings') as Native;
const asPoint = (x: Uint8Array, y: Uint8Array) => {
  const o = new Uint8Array(33);
  o[0] = 2 | (y[31]! & 1);
  o.set(x, 1);
  return o;
};

function time(label: string, n: number, f: (i: number) => unknown): number {
  for (let i = 0; i < Math.min(50, n); i++) f(i);
  const t = performance.now();
  for (let i = 0; i < n; i++) f(i);
  const us = ((performance.now() - t) * 1000) / n;
  console.log(`${label.padEnd(44)} ${us.toFixed(2).padStart(9)} µs`);
  return us;
}

const keys = Array.from({ length: 64 }, () => {
  for (;;) {
    const k = randomBytes(32);
    if (ecc.isPrivate(k)) return k;
  }
});
const pts = keys.map((k) => ecc.pointFromScalar(k, true)!);
const nobleScalars = keys.map((k) => bytesToBig(k) % N);
const noblePts = pts.map((p) => secp256k1.Point.fromBytes(p));

console.log('secp256k1 operations (per call)');
time('native secp256k1 publicKeyCreate (k·G, ecmult_gen)', 2000, (i) => native.publicKeyCreate(keys[i & 63]!, true));
time('tiny-secp256k1 pointFromScalar (k·G)', 2000, (i) => ecc.pointFromScalar(keys[i & 63]!, true));
time('@noble/curves Point.BASE.multiply (k·G)', 500, (i) => secp256k1.Point.BASE.multiply(nobleScalars[i & 63]!).toBytes(true));
time('native secp256k1 ecdh → point (k·P, ecmult_const)', 2000, (i) => native.ecdh(pts[i & 63]!, keys[(i + 1) & 63]!, { hashfn: asPoint }, new Uint8Array(33)));
time('tiny-secp256k1 pointMultiply (k·P, variable-time ecmult)', 2000, (i) => ecc.pointMultiply(pts[i & 63]!, keys[(i + 1) & 63]!, true));
time('@noble/curves Point.multiply (k·P)', 300, (i) => noblePts[i & 63]!.multiply(nobleScalars[(i + 1) & 63]!).toBytes(true));
time('tiny-secp256k1 pointAdd', 5000, (i) => ecc.pointAdd(pts[i & 63]!, pts[(i + 1) & 63]!, true));
time('@noble/curves Point.add (+ encode)', 2000, (i) => noblePts[i & 63]!.add(noblePts[(i + 1) & 63]!).toBytes(true));
time('tiny-secp256k1 isPoint (peer point check)', 5000, (i) => ecc.isPoint(pts[i & 63]!));
time('tiny-secp256k1 privateAdd', 20000, (i) => ecc.privateAdd(keys[i & 63]!, keys[(i + 1) & 63]!));
time('BigInt a·b mod n', 200000, (i) => mul(nobleScalars[i & 63]!, nobleScalars[(i + 7) & 63]!));
