import type { z } from 'zod';

/** The joined wallet key, alive only for the duration of one signing call (wiped afterwards). */
export interface KeyMaterial {
  /** 32-byte secp256k1 private key (DKLS) or Ed25519 seed (ED25519). */
  secret: Uint8Array;
  /** 33-byte compressed secp256k1 key, or 32-byte Ed25519 key. */
  publicKey: Uint8Array;
  /** The wallet's stored address. */
  address: string;
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
