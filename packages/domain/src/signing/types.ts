import type { z } from 'zod';
import type { Secp256k1Signature } from './secp256k1.ts';

/**
 * What a signing operation may do with the wallet's key: ask for signatures. The operations never
 * see key material, so the same operation runs where the key is joined (the signer process) or
 * where a threshold protocol produces the signature with the signer as the other party.
 */
export interface KeyMaterial {
  /** The wallet's stored address. */
  address: string;
  /** 33-byte compressed secp256k1 key, or 32-byte Ed25519 key, as the key itself gives it (never the caller). */
  readonly publicKey: Uint8Array;
  /** secp256k1 ECDSA over a 32-byte digest (nothing is hashed or prefixed), low S, with its recovery id. */
  signDigest(digest: Uint8Array): Promise<Secp256k1Signature>;
  /** Ed25519 signature (64 bytes) of `message`. Not assumed deterministic: a threshold key randomizes it. */
  signEd25519(message: Uint8Array): Promise<Uint8Array>;
}

/**
 * A signing operation of one wallet type: the strict zod schema of its request body (used by
 * REST, tRPC and the OpenAPI document) and the signer. Bad input the schema cannot express
 * (undecodable transaction, wrong length) is thrown as ApiError 400 INVALID_REQUEST by `sign`.
 * `digest` names what was signed, for the audit log (hex SHA-256 of the signed bytes or message);
 * it must never contain key material.
 */
export interface SignOperation<S extends z.ZodType = z.ZodType> {
  body: S;
  sign(key: KeyMaterial, input: z.output<S>): Promise<{ response: Record<string, unknown>; digest: string; chainId?: string | null }>;
}

/** What one wallet type can do; an absent operation is a "no" cell of the capability matrix. */
export interface ChainSigner {
  message: SignOperation;
  raw: SignOperation;
  transaction?: SignOperation;
  typedData?: SignOperation;
  authorization?: SignOperation;
}
