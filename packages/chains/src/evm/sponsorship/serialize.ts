/**
 * A signed (or partly signed) operation as JSON, so the service can persist it before submission
 * and resend exactly the same operation (same userOpHash) on a retry. Bigints are decimal strings,
 * addresses checksummed, other hex lower-case, keys in a fixed order: serialize(parse(json)) ===
 * json for every json serialize produced. Parsing is strict: unknown keys, missing keys and
 * malformed values throw a TypeError naming the field.
 */
import { getAddress, isAddress, type Address, type Hex, type SignedAuthorization } from 'viem';
import type { SponsoredUserOperation } from './user-operation.ts';

const UINT_FIELDS = [
  'nonce',
  'callGasLimit',
  'verificationGasLimit',
  'preVerificationGas',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'paymasterVerificationGasLimit',
  'paymasterPostOpGasLimit',
] as const;
const KEY_ORDER = [
  'sender',
  'nonce',
  'callData',
  'callGasLimit',
  'verificationGasLimit',
  'preVerificationGas',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'paymaster',
  'paymasterVerificationGasLimit',
  'paymasterPostOpGasLimit',
  'paymasterData',
  'signature',
  'authorization',
] as const;
const AUTHORIZATION_KEYS = ['address', 'chainId', 'nonce', 'r', 's', 'yParity'] as const;

const MAX_UINT256 = (1n << 256n) - 1n;
const MAX_UINT128 = (1n << 128n) - 1n;
const lowerHex = (h: Hex) => h.toLowerCase() as Hex;

/** The op as canonical JSON text. */
export function serializeUserOperation(op: SponsoredUserOperation): string {
  const out: Record<string, unknown> = {};
  for (const key of KEY_ORDER) {
    const value = op[key];
    if (key === 'authorization') {
      if (value === undefined) continue;
      const a = value as SignedAuthorization;
      out.authorization = { address: getAddress(a.address), chainId: a.chainId, nonce: a.nonce, r: lowerHex(a.r), s: lowerHex(a.s), yParity: a.yParity };
    } else if (typeof value === 'bigint') out[key] = value.toString(10);
    else if (key === 'sender' || key === 'paymaster') out[key] = getAddress(value as Address);
    else out[key] = lowerHex(value as Hex);
  }
  return JSON.stringify(out);
}

function fail(field: string, what: string): never {
  throw new TypeError(`user operation: ${field} ${what}`);
}

function exactKeys(obj: unknown, allowed: readonly string[], optional: readonly string[], where: string): Record<string, unknown> {
  if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) fail(where, 'must be an object');
  const record = obj as Record<string, unknown>;
  for (const key of Object.keys(record)) if (!allowed.includes(key)) fail(`${where}.${key}`, 'is not a known field');
  for (const key of allowed) if (!(key in record) && !optional.includes(key)) fail(`${where}.${key}`, 'is missing');
  return record;
}

function uint(value: unknown, field: string): bigint {
  if (typeof value !== 'string' || !/^(0|[1-9][0-9]{0,77})$/.test(value)) fail(field, 'must be a decimal string');
  const n = BigInt(value);
  // Gas limits and fees are packed into 16 bytes each; the nonce (key ‖ sequence) takes 32.
  if (n > (field === 'nonce' ? MAX_UINT256 : MAX_UINT128)) fail(field, 'is out of range');
  return n;
}

function hex(value: unknown, field: string, bytes?: number): Hex {
  if (typeof value !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(value)) fail(field, 'must be 0x-prefixed hex of whole bytes');
  if (bytes !== undefined && value.length !== 2 + bytes * 2) fail(field, `must be ${bytes} bytes`);
  return lowerHex(value as Hex);
}

function address(value: unknown, field: string): Address {
  if (typeof value !== 'string' || !isAddress(value, { strict: false })) fail(field, 'must be an address');
  return getAddress(value);
}

function smallInt(value: unknown, field: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0 || value > max) fail(field, `must be an integer in [0, ${max}]`);
  return value;
}

/** The op stored by `serializeUserOperation`. */
export function parseUserOperation(json: string): SponsoredUserOperation {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    fail('JSON', 'is not valid');
  }
  const r = exactKeys(raw, KEY_ORDER, ['authorization'], 'op');
  const uints = Object.fromEntries(UINT_FIELDS.map((k) => [k, uint(r[k], k)])) as Record<(typeof UINT_FIELDS)[number], bigint>;
  const op: SponsoredUserOperation = {
    sender: address(r.sender, 'sender'),
    ...uints,
    callData: hex(r.callData, 'callData'),
    paymaster: address(r.paymaster, 'paymaster'),
    paymasterData: hex(r.paymasterData, 'paymasterData'),
    signature: hex(r.signature, 'signature'),
  };
  if (r.authorization !== undefined) {
    const a = exactKeys(r.authorization, AUTHORIZATION_KEYS, [], 'authorization');
    op.authorization = {
      address: address(a.address, 'authorization.address'),
      chainId: smallInt(a.chainId, 'authorization.chainId'),
      nonce: smallInt(a.nonce, 'authorization.nonce'),
      r: hex(a.r, 'authorization.r', 32),
      s: hex(a.s, 'authorization.s', 32),
      yParity: smallInt(a.yParity, 'authorization.yParity', 1),
    };
  }
  return op;
}
