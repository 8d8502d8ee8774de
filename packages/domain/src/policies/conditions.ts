/**
 * Conditions of a policy rule: `compare` leaves over one fact, `aggregate` leaves over a spend
 * meter in a fixed window, and `all` / `any` / `not` groups. These schemas check the shape; the
 * fact-by-action and value-by-type checks need the document's wallet type and the rule's actions
 * and run in document.ts.
 */
import { z } from 'zod';
import { policyFactNames, policyMeters } from './facts.ts';

export const policyCompareOperators = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'nin'] as const;
export type PolicyCompareOperator = (typeof policyCompareOperators)[number];
/** Operators that only make sense on amounts. */
export const policyOrderingOperators: readonly PolicyCompareOperator[] = ['lt', 'lte', 'gt', 'gte'];
/** Operators whose `value` is a set (non-empty array). */
export const policySetOperators: readonly PolicyCompareOperator[] = ['in', 'nin'];
export const policyAggregateOperators = ['gt', 'gte', 'lt', 'lte'] as const;

/** Bounds that keep evaluation cheap and catch runaway documents. */
export const policyConditionLimits = { depth: 8, setValues: 1000 } as const;

const windowUnits = { ms: 1, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export type WindowUnit = keyof typeof windowUnits;
const maxWindowMs = 366 * windowUnits.d;
const windowPattern = /^([1-9]\d{0,11})(ms|m|h|d)$/;

/** The window's length in milliseconds, or null when `text` is not `<positive integer><ms|m|h|d>` up to 366 days. */
export function policyWindowMs(text: string): number | null {
  const match = windowPattern.exec(text);
  if (!match) return null;
  const ms = Number(match[1]) * windowUnits[match[2] as WindowUnit];
  return ms <= maxWindowMs ? ms : null;
}

/**
 * The fixed window holding `at`: windows are consecutive buckets of the window's length counted
 * from the Unix epoch (1970-01-01T00:00:00Z), so `1d` resets at 00:00 UTC, `1h` on the hour and
 * `7d` on Thursdays 00:00 UTC (the epoch's weekday).
 */
export function policyWindowBounds(window: string, at: Date): { start: Date; end: Date } {
  const ms = policyWindowMs(window);
  if (ms == null) throw new Error(`invalid window ${window}`);
  const start = Math.floor(at.getTime() / ms) * ms;
  return { start: new Date(start), end: new Date(start + ms) };
}

export const policyWindowSchema = z
  .string()
  .refine((s) => policyWindowMs(s) != null, {
    error: 'expected a window as a positive integer followed by ms, m, h or d (e.g. "1d", "12h"), at most 366 days',
  })
  .describe('Fixed window aligned to the Unix epoch in UTC: "1d" resets at 00:00 UTC');

const conditionValueSchema = z.union([z.string(), z.array(z.string()).min(1).max(policyConditionLimits.setValues)], {
  error: 'expected a string, or for in/nin a non-empty array of strings (amounts are decimal strings in base units)',
});

const baseUnits = z.string().regex(/^(0|[1-9]\d{0,77})$/, { error: 'expected a non-negative integer in base units as a decimal string (e.g. "1000000")' });

/** Delegation policies only: makes the condition's `value` (the default) adjustable by the wallet's user within min..max. */
export const policyParameterSchema = z
  .strictObject({
    id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, { error: 'expected 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit' }),
    label: z.string().trim().min(1, { error: 'expected 1-100 characters' }).max(100, { error: 'expected 1-100 characters' }).describe('Shown to the user'),
    min: baseUnits.optional().describe('Lowest value the user may save, base units'),
    max: baseUnits.optional().describe('Highest value the user may save, base units'),
  })
  .describe("User-adjustable limit (delegation policies): the condition's value is the default; unique id within the policy");

export type PolicyParameter = z.output<typeof policyParameterSchema>;

export const policyCompareConditionSchema = z
  .strictObject({
    fact: z.enum(policyFactNames, { error: (issue) => `unknown fact ${JSON.stringify(issue.input)}; see the fact catalog` }),
    op: z.enum(policyCompareOperators),
    value: conditionValueSchema,
    parameter: policyParameterSchema.optional(),
  })
  .describe('Compares one fact of the request with `value`');

export const policyAggregateConditionSchema = z
  .strictObject({
    aggregate: z.strictObject({
      meter: z.enum(policyMeters),
      window: policyWindowSchema,
      asset: z.string().min(1).optional().describe('spend.token only: the token counted (contract, mint, denom, CODE:ISSUER)'),
    }),
    op: z.enum(policyAggregateOperators),
    value: z.string({ error: 'expected the limit as a decimal string in base units' }),
    parameter: policyParameterSchema.optional(),
  })
  .describe("Compares the meter's value after this request (key x wallet x network x asset x window) with `value`");

export type CompareCondition = z.output<typeof policyCompareConditionSchema>;
export type AggregateCondition = z.output<typeof policyAggregateConditionSchema>;
export type AllCondition = { all: PolicyCondition[] };
export type AnyCondition = { any: PolicyCondition[] };
export type NotCondition = { not: PolicyCondition };
export type PolicyCondition = CompareCondition | AggregateCondition | AllCondition | AnyCondition | NotCondition;

export const policyConditionSchema: z.ZodType<PolicyCondition> = z.lazy(() =>
  z.union([
    policyCompareConditionSchema,
    policyAggregateConditionSchema,
    z.strictObject({ all: z.array(policyConditionSchema).min(1) }),
    z.strictObject({ any: z.array(policyConditionSchema).min(1) }),
    z.strictObject({ not: policyConditionSchema }),
  ], { error: 'expected a condition: {fact, op, value}, {aggregate, op, value}, {all: [...]}, {any: [...]} or {not: {...}}' }),
).meta({ id: 'PolicyCondition' });

export type PolicyConditionLeaf = { kind: 'compare'; condition: CompareCondition; path: (string | number)[] } | { kind: 'aggregate'; condition: AggregateCondition; path: (string | number)[] };

/** Every leaf of `condition` with its path (from `base`), and the deepest nesting seen. */
export function policyConditionLeaves(condition: PolicyCondition, base: (string | number)[]): { leaves: PolicyConditionLeaf[]; depth: number } {
  const leaves: PolicyConditionLeaf[] = [];
  let depth = 0;
  const walk = (c: PolicyCondition, path: (string | number)[], level: number) => {
    depth = Math.max(depth, level);
    if ('fact' in c) leaves.push({ kind: 'compare', condition: c, path });
    else if ('aggregate' in c) leaves.push({ kind: 'aggregate', condition: c, path });
    else if ('all' in c) c.all.forEach((child, i) => walk(child, [...path, 'all', i], level + 1));
    else if ('any' in c) c.any.forEach((child, i) => walk(child, [...path, 'any', i], level + 1));
    else walk(c.not, [...path, 'not'], level + 1);
  };
  walk(condition, base, 1);
  return { leaves, depth };
}
