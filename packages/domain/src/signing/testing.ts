import { expect } from 'vitest';
import { finishSigning, importSeed, respondToSigning, startSigning } from '@wallet/frost-ed25519';
import { joinedKeyMaterial } from '../custody/joined-key.ts';
import { generateKey } from '../custody/keys.ts';
import { ApiError } from '../errors.ts';
import { parseInput } from '../shared/zod.ts';
import { schemeOfType } from '../wallets/schemas.ts';
import { deriveAddress, type WalletType } from '../wallets/addresses.ts';
import type { KeyMaterial, SignOperation } from './types.ts';

/** Test helpers shared by the signer tests. */

/** A whole key's signing capability, with its secret so tests can sign the same thing with the chain's SDK. */
export type TestKeyMaterial = KeyMaterial & { secret: Uint8Array };

export function keyMaterial(type: WalletType, secret?: Uint8Array, cosmosPrefix?: string): TestKeyMaterial {
  const scheme = schemeOfType[type];
  const key = secret ?? generateKey(scheme).secret;
  const capability = joinedKeyMaterial(scheme, key, '');
  const address = deriveAddress(type, capability.publicKey, cosmosPrefix);
  return Object.assign(joinedKeyMaterial(scheme, key, address), { secret: key });
}

/**
 * An Ed25519 wallet key as the service holds it: FROST 2-of-3 (the seed split by the trusted dealer),
 * both online participants in this process. Its signatures are randomized, so tests that use it
 * cannot rely on equal signatures for equal inputs; `secret` is the seed, for the chain SDKs.
 */
export function frostTestKeyMaterial(type: 'SOLANA' | 'STELLAR' | 'SUI', seed?: Uint8Array): TestKeyMaterial {
  const secret = seed ?? generateKey('ED25519').secret;
  const { keyPackages, publicKeyPackage } = importSeed(secret);
  const [api, signer] = keyPackages as [(typeof keyPackages)[number], (typeof keyPackages)[number]];
  const publicKey = Uint8Array.from(publicKeyPackage.groupPublicKey);
  return {
    secret,
    address: deriveAddress(type, publicKey),
    publicKey,
    signDigest: async () => {
      throw new Error('an Ed25519 key makes no secp256k1 signature');
    },
    signEd25519: async (message) => {
      const { nonces, request } = startSigning(api, Uint8Array.from(message), 2);
      return finishSigning(api, publicKeyPackage, nonces, request, respondToSigning(signer, publicKeyPackage, request));
    },
  };
}

/** What the route does: parse the body with the operation's schema, then sign. */
export async function signWith(op: SignOperation | undefined, key: KeyMaterial, body: unknown) {
  if (!op) throw new Error('operation not supported');
  return op.sign(key, parseInput(op.body, body));
}

/** Expects a 400 INVALID_REQUEST ApiError, optionally with a message (or details) matching `pattern`. */
export async function expectInvalidRequest(call: () => unknown, pattern?: string | RegExp): Promise<ApiError> {
  const error = await Promise.resolve()
    .then(call)
    .then(
      () => undefined,
      (e: unknown) => e,
    );
  expect(error).toBeInstanceOf(ApiError);
  const apiError = error as ApiError;
  expect(apiError.status).toBe(400);
  expect(apiError.code).toBe('INVALID_REQUEST');
  if (pattern) expect(`${apiError.message} ${JSON.stringify(apiError.extra)}`).toMatch(pattern);
  return apiError;
}
