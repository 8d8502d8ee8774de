/**
 * POST /v1/wallets/{walletId}/calls: the body, its answers and its error bodies. A batch is 1 to
 * MAX_CALLS calls `{to, value?, data?}` run atomically in one transaction of an EVM wallet
 * through its EIP-7702 delegation (Simple7702Account `executeBatch`).
 */
import { isAddress } from 'viem';
import { z } from 'zod';
import { baseUnitsMessage } from '../shared/amount-messages.ts';
import { transferResponse } from '../transactions/schemas.ts';

/** The most calls one batch runs (one transaction: its gas grows with each call). */
export const MAX_CALLS = 10;
/** The most calldata one call carries (hex characters after 0x: 24 KiB of bytes). */
const MAX_CALLDATA_HEX = 2 * 24 * 1024;

const BASE_UNITS_PATTERN = /^(0|[1-9]\d{0,77})$/;
const weiIn = (units: string) => z.string({ error: (issue) => baseUnitsMessage(units, false, issue.input) }).regex(BASE_UNITS_PATTERN, { error: (issue) => baseUnitsMessage(units, false, issue.input) });

const callSchema = z.strictObject({
  to: z
    .string()
    .refine((value) => isAddress(value, { strict: false }), 'must be a 0x-prefixed 20-byte EVM address')
    .describe('The contract or account called'),
  value: weiIn('wei').optional().describe('Wei sent with the call, as a decimal string; default 0'),
  data: z
    .string()
    .regex(/^0x([0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex with an even number of digits')
    .max(2 + MAX_CALLDATA_HEX, `must be at most ${MAX_CALLDATA_HEX / 2} bytes`)
    .optional()
    .describe('Calldata (0x hex); default none'),
});

const chainIdSchema = z
  .union([z.number().int().positive().max(2 ** 53 - 1), z.string().regex(/^[1-9]\d{0,15}$/, 'a positive integer')])
  .transform((value) => Number(value));

export const callsBody = z
  .strictObject({
    chainId: chainIdSchema.describe('The EVM chain (see GET /v1/chains)'),
    calls: z.array(callSchema).min(1, 'must hold at least one call').max(MAX_CALLS, `must hold at most ${MAX_CALLS} calls`).describe(`1 to ${MAX_CALLS} calls, run in order, all or none`),
    sponsored: z
      .boolean()
      .optional()
      .describe(
        "true: the service pays the gas (a sponsored user operation), under the eligibility of sponsored transfers: every call to a token or contract sponsored on the chain, none with native value (else 409 CALLS_UNAVAILABLE naming the call); default false, the wallet pays",
      ),
    gasLimit: weiIn('gas units').optional().describe('Default: the simulation\'s gas plus 20%, plus the delegation\'s cost when it is carried'),
    maxFeePerGas: weiIn('wei per gas').optional(),
    maxPriorityFeePerGas: weiIn('wei per gas').optional(),
    autoRetry: z
      .strictObject({
        enabled: z.boolean().describe('false: the service never replaces this transaction'),
        maxFeePerGas: z.string().regex(/^[1-9]\d{0,77}$/, 'expected a positive integer in wei per gas, as a decimal string').optional().describe('The maxFeePerGas no replacement goes above'),
      })
      .optional()
      .describe('Managed automatic retry as on transfers: fee replacements of the same transaction; default the project\'s default, else on; never with maxFeePerGas or maxPriorityFeePerGas pinned'),
  })
  .meta({ id: 'CallsRequest' });

/** `callsBody` with its cross-field rules (the public schema stays `callsBody`). */
export const callsInput = callsBody.superRefine((input, ctx) => {
  const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
  const isDecimal = (v: string | undefined): v is string => v !== undefined && /^\d+$/.test(v);
  if (isDecimal(input.maxFeePerGas) && isDecimal(input.maxPriorityFeePerGas) && BigInt(input.maxPriorityFeePerGas) > BigInt(input.maxFeePerGas)) {
    issue(['maxPriorityFeePerGas'], 'must not exceed maxFeePerGas');
  }
  if (input.autoRetry?.enabled === true) {
    for (const field of ['maxFeePerGas', 'maxPriorityFeePerGas'] as const) {
      if (input[field] !== undefined) issue([field], 'pins what a managed retry would change: leave it out, or set autoRetry.enabled to false');
    }
  }
  if (input.sponsored === true) {
    for (const field of ['gasLimit', 'maxFeePerGas', 'maxPriorityFeePerGas', 'autoRetry'] as const) {
      if (input[field] !== undefined) issue([field], 'not for a sponsored batch: the service prices its operation');
    }
  }
});

export type CallsInput = z.output<typeof callsInput>;

/** The answer: the transfer route's (signed transaction, hash, record id, managed retry). */
export const callsResponse = transferResponse;

function errorBody<Code extends string, Extra extends z.ZodRawShape>(id: string, code: Code, extra: Extra) {
  return z.object({ code: z.literal(code), message: z.string(), ...extra }).meta({ id });
}

export const callsErrorBodies = {
  simulationReverted: errorBody('CallsSimulationReverted', 'CALLS_SIMULATION_REVERTED', {
    callIndex: z.number().int().nullable().describe('The call that reverted (0-based), null when the revert names none'),
    reason: z.string().describe('The decoded revert: Error("…"), Panic(n), an ERC-20 error with its arguments, or the undecoded selector'),
    revertData: z.string().describe("The failing call's own revert data, 0x-hex"),
  }),
  callsUnavailable: errorBody('CallsUnavailable', 'CALLS_UNAVAILABLE', {}),
};
