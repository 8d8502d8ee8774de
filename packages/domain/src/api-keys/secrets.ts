import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Environment } from '../ports.ts';

/** A secret key: `sk_test_` (development) or `sk_live_` (production) and 32 random bytes, base64url. */
export function generateSecretKey(environment: Environment): string {
  const prefix = environment === 'production' ? 'sk_live_' : 'sk_test_';
  return prefix + randomBytes(32).toString('base64url');
}

/** Keys are stored only as this hash. SHA-256 suffices: the secret has 256 bits of entropy. */
export function hashSecretKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The part of a key that may be shown to staff to tell keys apart. */
export function displayPrefix(secret: string): string {
  return `${secret.slice(0, 12)}…`;
}

export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

export const SECRET_KEY_PATTERN = /^sk_(test|live)_[A-Za-z0-9_-]{43}$/;
