import { createHash } from 'node:crypto';
import { z } from 'zod';
import { walletTypes } from '../wallets/schemas.ts';

/** Largest message or raw payload accepted for signing (bytes). */
export const MAX_SIGN_PAYLOAD_BYTES = 64 * 1024;

export const messageBody = z
  .strictObject({ message: z.string().min(1).max(MAX_SIGN_PAYLOAD_BYTES) })
  .meta({ id: 'SignMessageRequest' });

/** Hex of the exact bytes, with or without 0x, even length, at most 64 KiB of bytes. */
export const hexData = z
  .string()
  .max(2 + MAX_SIGN_PAYLOAD_BYTES * 2)
  .regex(/^(0x)?([0-9a-fA-F]{2})+$/, 'must be an even-length hex string of the bytes to sign');

export const rawBody = z
  .strictObject({ data: hexData, walletType: z.enum(walletTypes).optional() })
  .meta({ id: 'SignRawRequest' });

export function hexToBytes(hex: string): Uint8Array {
  return new Uint8Array(Buffer.from(hex.startsWith('0x') ? hex.slice(2) : hex, 'hex'));
}

/** Audit digest: hex SHA-256 of what was signed. */
export function digestOf(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}
