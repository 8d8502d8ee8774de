/**
 * The words of every amount error (docs/api-conventions.md, "Amounts and units"): a transfer's or a
 * transaction's `value` is an integer string in base units, a yield or faucet `amount` a decimal
 * string in whole tokens. Each message names the unit it expects and quotes what it got.
 */

/** The base units of a `value`, by the wallet type it moves (ANY: the public schema, both types). */
export const BASE_UNITS = {
  EVM: "base units (wei for ETH, the token's smallest unit for ERC-20)",
  SOLANA: "base units (lamports for SOL, the mint's smallest unit for SPL)",
  ANY: "base units (wei for ETH, lamports for SOL, the token's smallest unit for ERC-20 and SPL)",
} as const;

const MAX_QUOTED = 40;

/** What the request held, as JSON and shortened: `"1.5"`, `1000`, `null`. */
export function quoteInput(input: unknown): string {
  const text = JSON.stringify(input) ?? String(input);
  return text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}…` : text;
}

/** `expected a positive integer in base units (wei for ETH, …) as a decimal string, got "1.5"` (or `required: …` when absent). */
export function baseUnitsMessage(units: string, positive: boolean, input: unknown): string {
  const expected = `a ${positive ? 'positive' : 'non-negative'} integer in ${units} as a decimal string`;
  return input === undefined ? `required: ${expected}` : `expected ${expected}, got ${quoteInput(input)}`;
}

/** `expected a positive decimal amount in whole tokens (e.g. "1.5" USDC), got "1e6"` (or `required: …` when absent). */
export function wholeTokensMessage(example: string, input: unknown): string {
  const expected = `a positive decimal amount in whole tokens as a string (e.g. ${example}), not base units`;
  return input === undefined ? `required: ${expected}` : `expected ${expected}, got ${quoteInput(input)}`;
}

/** `expected at most 6 decimals in whole tokens (USDC has 6), got "1.1234567"`. */
export function tooManyDecimalsMessage(symbol: string, decimals: number, input: unknown): string {
  return `expected at most ${decimals} decimals in whole tokens (${symbol} has ${decimals}), got ${quoteInput(input)}`;
}
