/**
 * EVM signing (secp256k1, DKLS wallets).
 *
 * | operation     | what is signed (ECDSA over the 32-byte Keccak-256 digest of ...)      | response                      |
 * | ------------- | --------------------------------------------------------------------- | ----------------------------- |
 * | message       | EIP-191: "\x19Ethereum Signed Message:\n" + byte length + UTF-8 bytes   | `signature` (65 B hex, no 0x) |
 * | raw           | nothing: the 32 given bytes are the digest (no prefix, no hashing)     | `signature` (65 B hex, no 0x) |
 * | transaction   | the EIP-2718 / EIP-155 signing payload of a type 2, 0 or 4 tx           | `signedTransaction` (0x hex)  |
 * | typedData     | EIP-712: 0x1901 || domainSeparator || hashStruct(message)              | `signature` (65 B hex, no 0x) |
 * | authorization | EIP-7702: 0x05 || rlp([chainId, address, nonce])                        | signed authorization object   |
 *
 * 65-byte signatures are r || s || v with v = 27 / 28, exactly as viem's `signMessage` /
 * `serializeSignature` produce them; s is always low (EIP-2).
 *
 * The key is used as given: `KeyMaterial` already carries the address and public key, so nothing
 * is re-derived per call (viem's `privateKeyToAccount` would compute the public key, which costs
 * as much as the signature itself). ECDSA is @noble/curves 2.x with RFC 6979 deterministic nonces,
 * the same algorithm viem uses, so signatures are byte-identical to viem's. Everything that encodes
 * or hashes Ethereum structures (transactions, EIP-712, RLP) is viem's own code.
 *
 * `digest` (audit) is the SHA-256 of the bytes whose Keccak-256 is signed, as listed above; for
 * `message` it is the SHA-256 of the UTF-8 message itself (the same rule on every chain).
 * `chainId`: the transaction's / authorization's chainId, the typed-data domain's chainId (null
 * without one), null for message and raw.
 *
 * Signatures come from the one secp256k1 signer (./secp256k1.ts, libsecp256k1 in WebAssembly).
 */
import { keccak_256 } from '@noble/hashes/sha3.js';
import {
  BaseError,
  concatHex,
  getAddress,
  getTypesForEIP712Domain,
  hashDomain,
  hashStruct,
  isAddress,
  numberToHex,
  serializeTransaction,
  toRlp,
  validateTypedData,
  type Hex,
  type TransactionSerializable,
  type TypedDataDomain,
} from 'viem';
import { z } from 'zod';
import { invalidRequest } from '../errors.ts';
import { baseUnitsMessage, quoteInput } from '../shared/amount-messages.ts';
import { digestOf, hexToBytes, messageBody, rawBody } from './common.ts';
import { authorizationListSchema, checkAuthorizationList, viemAuthorizationList } from './evm-authorization-list.ts';
import type { ChainSigner, KeyMaterial, SignOperation } from './types.ts';

interface RecoverableSignature {
  /** r || s || v, v = 27 + yParity. */
  bytes: Uint8Array;
  r: Hex;
  s: Hex;
  yParity: 0 | 1;
}

/** ECDSA (low s) over a 32-byte digest; nothing is hashed or prefixed here. */
async function signDigest(digest: Uint8Array, key: KeyMaterial): Promise<RecoverableSignature> {
  const { signature, recoveryId } = await key.signDigest(digest);
  const bytes = new Uint8Array(65);
  bytes.set(signature);
  bytes[64] = 27 + recoveryId;
  return { bytes, r: `0x${hex(bytes.subarray(0, 32))}`, s: `0x${hex(bytes.subarray(32, 64))}`, yParity: recoveryId };
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

const EIP191_PREFIX = '\x19Ethereum Signed Message:\n';

function eip191Digest(message: string): Uint8Array {
  const body = Buffer.from(message, 'utf8');
  return keccak_256(Buffer.concat([Buffer.from(`${EIP191_PREFIX}${body.length}`, 'utf8'), body]));
}

/** Errors of viem's encoders carry a one-line `shortMessage`; that is what a caller needs to see. */
function encodingError(prefix: string, error: unknown): never {
  const detail =
    error instanceof BaseError ? error.shortMessage : error instanceof Error ? error.message : String(error);
  throw invalidRequest(`${prefix}: ${detail}`);
}

// ---------------------------------------------------------------------------------------------
// Field schemas
// ---------------------------------------------------------------------------------------------

const MAX_UINT256 = (1n << 256n) - 1n;
const DECIMAL = /^(0|[1-9]\d*)$/;

/** Ethereum address; mixed case must carry a valid EIP-55 checksum, all-lower/upper case is accepted. */
const addressSchema = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x-prefixed 20-byte hex address')
  .refine((value) => !/^0x[0-9a-fA-F]{40}$/.test(value) || isAddress(value, { strict: true }), {
    message: 'invalid EIP-55 checksum (send the address checksummed or all lowercase)',
  });

/** Non-negative integer quantity as a decimal string (no sign, no leading zeros), at most 2^256 - 1. */
const quantitySchema = z
  .string()
  .max(78)
  .regex(DECIMAL, 'must be a non-negative integer as a decimal string, without leading zeros')
  .refine((value) => !DECIMAL.test(value) || BigInt(value) <= MAX_UINT256, {
    message: 'must be at most 2^256 - 1',
  });

/** The transaction's `value`: a quantity in wei; each refusal names the unit (docs/api-conventions.md, "Amounts and units"). */
const WEI = "base units (wei of the chain's native coin; a token amount goes in `data`)";
const valueError = (issue: { input?: unknown }) => baseUnitsMessage(WEI, false, issue.input);
const valueSchema = z
  .string({ error: valueError })
  .max(78, { error: valueError })
  .regex(DECIMAL, { error: valueError })
  .refine((value) => !DECIMAL.test(value) || BigInt(value) <= MAX_UINT256, {
    error: (issue) => `expected at most 2^256 - 1 in wei, got ${quoteInput(issue.input)}`,
  });

/** Calldata / init code, 0x-prefixed, even length. */
const MAX_CALLDATA_BYTES = 128 * 1024;
const calldataSchema = z
  .string()
  .max(2 + MAX_CALLDATA_BYTES * 2)
  .regex(/^0x([0-9a-fA-F]{2})*$/, 'must be 0x-prefixed, even-length hex');

const chainIdSchema = z.number().int().positive();
const nonceSchema = z.number().int().min(0);

function toBigInt(value: string | undefined): bigint | undefined {
  return value !== undefined && DECIMAL.test(value) ? BigInt(value) : undefined;
}

// ---------------------------------------------------------------------------------------------
// message / raw
// ---------------------------------------------------------------------------------------------

const message: SignOperation<typeof messageBody> = {
  body: messageBody,
  async sign(key, input) {
    const signature = await signDigest(eip191Digest(input.message), key);
    return { response: { signature: hex(signature.bytes) }, digest: digestOf(input.message), chainId: null };
  },
};

const raw: SignOperation<typeof rawBody> = {
  body: rawBody,
  async sign(key, input) {
    const bytes = hexToBytes(input.data);
    if (bytes.length !== 32) {
      throw invalidRequest(`EVM sign-raw signs exactly 32 bytes (a hash); got ${bytes.length} bytes`);
    }
    const signature = await signDigest(bytes, key);
    return { response: { signature: hex(signature.bytes) }, digest: digestOf(bytes), chainId: null };
  },
};

// ---------------------------------------------------------------------------------------------
// transaction
// ---------------------------------------------------------------------------------------------

const EIP1559_FIELDS = ['maxFeePerGas', 'maxPriorityFeePerGas'] as const;

const evmTransactionSchema = z
  .strictObject({
    to: addressSchema,
    value: valueSchema.default('0'),
    data: calldataSchema.optional(),
    chainId: chainIdSchema,
    type: z.literal([0, 2, 4]).default(2).describe('2 = EIP-1559 (default), 0 = legacy (EIP-155); 4 = EIP-7702 is built by the service only'),
    nonce: nonceSchema,
    gasLimit: quantitySchema,
    maxFeePerGas: quantitySchema.optional().describe('type 2 only, required there'),
    maxPriorityFeePerGas: quantitySchema.optional().describe('type 2 only, required there'),
    gasPrice: quantitySchema.optional().describe('type 0 only, required there'),
    authorizationList: authorizationListSchema.optional().describe('type 4 only, required there'),
  })
  .superRefine((tx, ctx) => {
    checkAuthorizationList(tx, ctx);
    if (tx.type !== 0) {
      for (const field of EIP1559_FIELDS) {
        if (tx[field] === undefined) {
          ctx.addIssue({ code: 'custom', path: [field], message: 'required for type 2 (EIP-1559) transactions' });
        }
      }
      if (tx.gasPrice !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['gasPrice'],
          message: 'not allowed for type 2 transactions; use maxFeePerGas and maxPriorityFeePerGas',
        });
      }
      const maxFee = toBigInt(tx.maxFeePerGas);
      const tip = toBigInt(tx.maxPriorityFeePerGas);
      if (maxFee !== undefined && tip !== undefined && tip > maxFee) {
        ctx.addIssue({
          code: 'custom',
          path: ['maxPriorityFeePerGas'],
          message: 'must not exceed maxFeePerGas',
        });
      }
    } else {
      if (tx.gasPrice === undefined) {
        ctx.addIssue({ code: 'custom', path: ['gasPrice'], message: 'required for type 0 (legacy) transactions' });
      }
      for (const field of EIP1559_FIELDS) {
        if (tx[field] !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [field],
            message: 'not allowed for type 0 (legacy) transactions; use gasPrice',
          });
        }
      }
    }
  });

export const evmSignTransactionBody = z
  .strictObject({
    transaction: evmTransactionSchema,
    broadcast: z.boolean().optional().describe('true: also broadcast and record the signed transaction'),
  })
  .meta({ id: 'EvmSignTransactionRequest' });

export type EvmTransactionInput = z.output<typeof evmTransactionSchema>;

/** The viem form of a validated request transaction. */
function toViemTransaction(tx: EvmTransactionInput): TransactionSerializable {
  const common = {
    chainId: tx.chainId,
    nonce: tx.nonce,
    to: tx.to as Hex,
    value: BigInt(tx.value),
    gas: BigInt(tx.gasLimit),
    ...(tx.data !== undefined ? { data: tx.data as Hex } : {}),
  };
  if (tx.type === 0) {
    return { ...common, type: 'legacy', gasPrice: BigInt(tx.gasPrice ?? '0') };
  }
  const fees = { maxFeePerGas: BigInt(tx.maxFeePerGas ?? '0'), maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas ?? '0') };
  if (tx.type === 4) return { ...common, type: 'eip7702', ...fees, authorizationList: viemAuthorizationList(tx.authorizationList ?? []) };
  return {
    ...common,
    type: 'eip1559',
    maxFeePerGas: BigInt(tx.maxFeePerGas ?? '0'),
    maxPriorityFeePerGas: BigInt(tx.maxPriorityFeePerGas ?? '0'),
  };
}

const transaction: SignOperation<typeof evmSignTransactionBody> = {
  body: evmSignTransactionBody,
  async sign(key, input) {
    const tx = toViemTransaction(input.transaction);
    let unsigned: Hex;
    try {
      unsigned = serializeTransaction(tx);
    } catch (error) {
      encodingError('invalid transaction', error);
    }
    const payload = hexToBytes(unsigned);
    const signature = await signDigest(keccak_256(payload), key);
    const signedTransaction = serializeTransaction(tx, {
      r: signature.r,
      s: signature.s,
      yParity: signature.yParity,
      v: BigInt(27 + signature.yParity),
    });
    return {
      response: { signedTransaction },
      digest: digestOf(payload),
      chainId: String(input.transaction.chainId),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// typed data (EIP-712)
// ---------------------------------------------------------------------------------------------

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MAX_TYPES = 256;
const MAX_FIELDS = 256;

const typeNameSchema = z
  .string()
  .max(256)
  .regex(IDENTIFIER, 'must be an identifier')
  .refine((name) => name !== '__proto__', { message: 'reserved name' });

const typedDataFieldSchema = z.strictObject({
  name: z.string().min(1).max(256),
  type: z.string().min(1).max(256),
});

const typedDataDomainSchema = z.strictObject({
  name: z.string().max(1024).optional(),
  version: z.string().max(1024).optional(),
  chainId: z
    .union([z.number().int().min(0), z.string().max(78).regex(DECIMAL, 'must be a decimal integer')])
    .optional()
    .describe('integer or decimal string'),
  verifyingContract: addressSchema.optional(),
  salt: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 32 bytes of 0x-prefixed hex')
    .optional(),
});

const typedDataSchema = z
  .strictObject({
    domain: typedDataDomainSchema,
    types: z.record(typeNameSchema, z.array(typedDataFieldSchema).min(1).max(MAX_FIELDS)),
    primaryType: z.string().min(1).max(256),
    message: z.record(z.string(), z.unknown()),
  })
  .superRefine((data, ctx) => {
    const names = Object.keys(data.types);
    if (names.length > MAX_TYPES) {
      ctx.addIssue({ code: 'custom', path: ['types'], message: `at most ${MAX_TYPES} types` });
    }
    if (Object.hasOwn(data.types, 'EIP712Domain')) {
      ctx.addIssue({
        code: 'custom',
        path: ['types', 'EIP712Domain'],
        message: 'EIP712Domain is derived from domain; do not send it',
      });
    } else if (!Object.hasOwn(data.types, data.primaryType)) {
      ctx.addIssue({
        code: 'custom',
        path: ['primaryType'],
        message: `primaryType "${data.primaryType}" is not defined in types`,
      });
    }
  });

export const evmSignTypedDataBody = z
  .strictObject({ typedData: typedDataSchema })
  .meta({ id: 'EvmSignTypedDataRequest' });

type TypedDataInput = z.output<typeof typedDataSchema>;

const ARRAY_SUFFIX = /^(.*)\[(\d*)\]$/;
const INTEGER_TYPE = /^u?int\d*$/;
const BYTES_TYPE = /^bytes\d*$/;
const INTEGER_STRING = /^(-?(0|[1-9]\d*)|0x[0-9a-fA-F]+)$/;
const HEX_BYTES = /^0x([0-9a-fA-F]{2})*$/;
const MAX_DEPTH = 32;

/**
 * Checks the JSON shape of every message value against its declared type before viem encodes it.
 * viem range-checks integers, addresses and fixed bytes, but coerces some values silently (an
 * object for a `string` field becomes "[object Object]", a non-hex string for `bytes` is taken as
 * UTF-8, `true` for an integer becomes 1, a number beyond 2^53 has already lost precision); what
 * is signed must be exactly what the caller meant, so such values are refused. A missing field is
 * refused too (as eth-sig-util does).
 */
function checkTypedValue(
  types: Record<string, readonly { name: string; type: string }[]>,
  type: string,
  value: unknown,
  path: string,
  depth: number,
): void {
  const fail = (expected: string): never => {
    throw invalidRequest(`invalid typedData: message${path}: expected ${expected} for type ${type}`);
  };
  if (depth > MAX_DEPTH) throw invalidRequest(`invalid typedData: message nested deeper than ${MAX_DEPTH} levels`);
  if (value === undefined || value === null) {
    throw invalidRequest(`invalid typedData: message${path}: missing value of type ${type}`);
  }
  const array = ARRAY_SUFFIX.exec(type);
  if (array) {
    if (!Array.isArray(value)) return fail('an array');
    if (array[2] !== '' && value.length !== Number(array[2])) fail(`an array of ${array[2]} elements`);
    value.forEach((item, i) => checkTypedValue(types, array[1]!, item, `${path}[${i}]`, depth + 1));
    return;
  }
  if (Object.hasOwn(types, type)) {
    if (typeof value !== 'object' || Array.isArray(value)) return fail('an object');
    for (const field of types[type]!) {
      checkTypedValue(types, field.type, (value as Record<string, unknown>)[field.name], `${path}.${field.name}`, depth + 1);
    }
    return;
  }
  if (type === 'string' || type === 'address') {
    if (typeof value !== 'string') fail('a string');
  } else if (type === 'bool') {
    if (typeof value !== 'boolean') fail('true or false');
  } else if (INTEGER_TYPE.test(type)) {
    if (typeof value === 'number' ? !Number.isSafeInteger(value) : typeof value !== 'string' || !INTEGER_STRING.test(value)) {
      fail('a safe integer or an integer string (decimal or 0x hex)');
    }
  } else if (BYTES_TYPE.test(type)) {
    if (typeof value !== 'string' || !HEX_BYTES.test(value)) fail('0x-prefixed even-length hex');
  }
  // Anything else is an unknown type name: viem's validation reports it.
}

/** The EIP-712 signing pre-image 0x1901 || domainSeparator || hashStruct(message), via viem. */
function typedDataPayload(data: TypedDataInput): Uint8Array {
  checkTypedValue(data.types, data.primaryType, data.message, '', 0);
  const { chainId, ...rest } = data.domain;
  const domain: TypedDataDomain = {
    ...rest,
    ...(chainId !== undefined ? { chainId: BigInt(chainId) } : {}),
  } as TypedDataDomain;
  const types = { EIP712Domain: getTypesForEIP712Domain({ domain }), ...data.types };
  try {
    validateTypedData({ domain, message: data.message, primaryType: data.primaryType, types } as never);
    const domainSeparator = hashDomain({ domain, types } as never);
    const structHash = hashStruct({ data: data.message, primaryType: data.primaryType, types } as never);
    return hexToBytes(concatHex(['0x1901', domainSeparator, structHash]));
  } catch (error) {
    encodingError('invalid typedData', error);
  }
}

const typedData: SignOperation<typeof evmSignTypedDataBody> = {
  body: evmSignTypedDataBody,
  async sign(key, input) {
    const payload = typedDataPayload(input.typedData);
    const signature = await signDigest(keccak_256(payload), key);
    const chainId = input.typedData.domain.chainId;
    return {
      response: { signature: hex(signature.bytes) },
      digest: digestOf(payload),
      chainId: chainId === undefined ? null : String(chainId),
    };
  },
};

// ---------------------------------------------------------------------------------------------
// authorization (EIP-7702)
// ---------------------------------------------------------------------------------------------

const authorizationSchema = z
  .strictObject({
    address: addressSchema.optional().describe('contract to delegate to'),
    contractAddress: addressSchema.optional().describe('alias of address'),
    chainId: z.number().int().min(0).describe('0 = valid on every chain'),
    nonce: nonceSchema,
  })
  .superRefine((auth, ctx) => {
    if ((auth.address === undefined) === (auth.contractAddress === undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: ['address'],
        message: 'give exactly one of address or contractAddress',
      });
    }
  });

export const evmSignAuthorizationBody = z
  .strictObject({ authorization: authorizationSchema })
  .meta({ id: 'EvmSignAuthorizationRequest' });

const EIP7702_MAGIC = '0x05';

const authorization: SignOperation<typeof evmSignAuthorizationBody> = {
  body: evmSignAuthorizationBody,
  async sign(key, input) {
    const { chainId, nonce } = input.authorization;
    const address = getAddress((input.authorization.address ?? input.authorization.contractAddress)!);
    // Byte-for-byte the encoding of viem's hashAuthorization: zero is the empty byte string.
    const payload = hexToBytes(
      concatHex([
        EIP7702_MAGIC,
        toRlp([chainId ? numberToHex(chainId) : '0x', address, nonce ? numberToHex(nonce) : '0x']),
      ]),
    );
    const signature = await signDigest(keccak_256(payload), key);
    return {
      response: {
        address,
        chainId,
        nonce,
        r: signature.r,
        s: signature.s,
        yParity: signature.yParity,
        signature: hex(signature.bytes),
      },
      digest: digestOf(payload),
      chainId: String(chainId),
    };
  },
};

export const evmSigner: ChainSigner = { message, raw, transaction, typedData, authorization };

