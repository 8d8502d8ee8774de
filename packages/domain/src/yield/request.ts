/**
 * A yield POST as the deposit and withdrawal routes will take it: the durable `Idempotency-Key`,
 * the body (`marketId` and/or `chainId`, `amount`), the amount normalized so that "10", "10.0" and
 * "10.000000" are one request, and the comparison that decides between "same request" (return or
 * retry the operation) and "same key, other request" (409). Pure: no store, no chain.
 */
import { z } from 'zod';
import { conflict } from '../errors.ts';
import { quoteInput, tooManyDecimalsMessage, wholeTokensMessage } from '../shared/amount-messages.ts';
import { fieldError, parseInput } from '../shared/zod.ts';
import type { YieldAction } from './execution.ts';
import { resolveYieldMarket, type YieldMarket } from './markets.ts';

/** USDC has six decimals on every market. */
export const YIELD_AMOUNT_DECIMALS = 6;
/** Spec limits: at most 85 characters, at most six decimals, greater than zero. */
const MAX_AMOUNT_LENGTH = 85;
const MAX_KEY_LENGTH = 256;

/** The published chain id enumeration (84532 only in sandbox and local test environments). */
const YIELD_CHAIN_IDS = [1, 8453, 11155111, 84532] as const;

const chainIdInput = z
  // "Its string form": the canonical decimal ("84532"), not "084532" or "+84532".
  .union([z.number().int(), z.string().regex(/^(0|[1-9][0-9]*)$/, 'must be an integer or its decimal string')])
  .transform((value) => Number(value))
  .refine((value) => (YIELD_CHAIN_IDS as readonly number[]).includes(value), `must be one of ${YIELD_CHAIN_IDS.join(', ')}`);

const AMOUNT_EXAMPLE = '"1.5" for 1.5 USDC';

const bodySchema = z.strictObject({
  marketId: z.string().min(1).optional(),
  chainId: chainIdInput.optional(),
  amount: z.string({ error: (issue) => wholeTokensMessage(AMOUNT_EXAMPLE, issue.input) }),
});

/** A normalized amount: the canonical decimal string (or `all`) and its base units (null for `all`). */
export interface YieldAmount {
  amount: string;
  baseUnits: bigint | null;
}

const amountError = (message: string) => fieldError('amount', message);

/**
 * The canonical form of a USDC amount: digits, one fractional digit at least, no trailing zeros
 * beyond it ("10" -> "10.0", "10.500000" -> "10.5"); leading zeros ("007.25", "01") are refused as the
 * spec's pattern refuses them. `all` only for withdrawals.
 */
export function normalizeYieldAmount(raw: string, action: YieldAction): YieldAmount {
  if (raw === 'all') {
    if (action !== 'withdraw') throw amountError('"all" is only for withdrawals; a deposit names a decimal amount');
    return { amount: 'all', baseUnits: null };
  }
  const wrong = () => amountError(`${wholeTokensMessage(AMOUNT_EXAMPLE, raw)}${action === 'withdraw' ? '; or "all"' : ''}`);
  if (raw.length > MAX_AMOUNT_LENGTH) throw amountError(`expected at most ${MAX_AMOUNT_LENGTH} characters of a decimal amount in whole tokens, got ${quoteInput(raw)}`);
  // The spec's pattern: ^(0|[1-9]\d*)(\.\d{1,6})?$ (no leading zeros); more decimals are refused below with their own message.
  const match = /^(0|[1-9][0-9]*)(?:\.([0-9]+))?$/.exec(raw);
  if (!match) throw wrong();
  const whole = match[1]!;
  const fraction = match[2] ?? '';
  if (fraction.length > YIELD_AMOUNT_DECIMALS) throw amountError(tooManyDecimalsMessage('USDC', YIELD_AMOUNT_DECIMALS, raw));
  const baseUnits = BigInt(whole) * 10n ** BigInt(YIELD_AMOUNT_DECIMALS) + BigInt(fraction.padEnd(YIELD_AMOUNT_DECIMALS, '0'));
  if (baseUnits === 0n) throw wrong();
  const canonicalFraction = fraction.replace(/0+$/, '') || '0';
  return { amount: `${BigInt(whole).toString()}.${canonicalFraction}`, baseUnits };
}

/**
 * The yield `Idempotency-Key` header: required, 1 to 256 printable ASCII characters (0x21 to 0x7E,
 * no spaces). Unlike the generic key it never expires and spans every yield operation of the partner.
 */
export function yieldIdempotencyKey(header: unknown): string {
  const problem =
    typeof header !== 'string' || header.length === 0
      ? 'is required on yield POSTs'
      : header.length > MAX_KEY_LENGTH
        ? `is longer than ${MAX_KEY_LENGTH} characters`
        : !/^[\x21-\x7e]+$/.test(header)
          ? 'must be printable ASCII without spaces (0x21 to 0x7E)'
          : null;
  if (problem) throw fieldError('Idempotency-Key', problem);
  return header as string;
}

/** What makes two yield POSTs "the same request" for one idempotency key (spec: wallet, chain, market, action, normalized amount). */
export interface YieldRequestIdentity {
  walletId: string;
  chainId: number;
  marketId: string;
  action: YieldAction;
  amount: string;
}

export interface ParsedYieldRequest extends YieldAmount {
  market: YieldMarket;
}

/** Parses a deposit or withdrawal body against this environment's markets: 400 before anything is created. */
export function parseYieldRequest(action: YieldAction, body: unknown, markets: readonly YieldMarket[]): ParsedYieldRequest {
  const input = parseInput(bodySchema, body);
  const normalized = normalizeYieldAmount(input.amount, action);
  const market = resolveYieldMarket(markets, { marketId: input.marketId, chainId: input.chainId });
  return { market, ...normalized };
}

/** The identity of a parsed request for `walletId`, as the operation keeps it with its key. */
export function yieldRequestIdentity(walletId: string, action: YieldAction, request: ParsedYieldRequest): YieldRequestIdentity {
  return { walletId, chainId: request.market.chainId, marketId: request.market.id, action, amount: request.amount };
}

/**
 * Same key, same identity: the caller gets (or retries) the existing operation. Same key, another
 * identity: 409, naming what differs (never the other request's values: they may be another wallet's).
 */
export function assertSameYieldRequest(stored: YieldRequestIdentity, incoming: YieldRequestIdentity): void {
  const differing = (['walletId', 'chainId', 'marketId', 'action', 'amount'] as const).filter((field) => stored[field] !== incoming[field]);
  if (differing.length === 0) return;
  throw conflict(`This Idempotency-Key was used for another yield request (different ${differing.join(', ')}); use a new key for new work`, {
    details: differing.map((field) => ({ path: field, message: 'differs from the request this key was first used for' })),
  });
}
