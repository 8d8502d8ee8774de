import { ApiError } from '../errors.ts';

/**
 * The per-environment yield execution switch (YIELD_EXECUTION):
 * - `enabled`: deposits and withdrawals may start;
 * - `withdrawals-only`: new deposits are refused, withdrawals still start (lets holders exit);
 * - `disabled`: no new yield execution at all.
 * Reads (markets, positions, operation status) and cancellation of eligible unsigned work never
 * consult the switch (spec Errors: `YIELD_DISABLED`; yield rule 9: a listed market does not mean
 * execution is enabled).
 */
export type YieldExecutionMode = 'enabled' | 'withdrawals-only' | 'disabled';

export const YIELD_EXECUTION_MODES = ['enabled', 'withdrawals-only', 'disabled'] as const satisfies readonly YieldExecutionMode[];

/** What a new yield operation would do. */
export type YieldAction = 'deposit' | 'withdraw';

/** 409 YIELD_DISABLED, in the spec's wording, naming the refused action. */
export const yieldDisabled = (action: YieldAction) =>
  new ApiError(
    409,
    'YIELD_DISABLED',
    `New yield execution or deposits are temporarily disabled in this environment (${action === 'deposit' ? 'deposits' : 'withdrawals'} refused); reads, status and cancellation of eligible unsigned work stay available`,
  );

export interface YieldExecutionSwitch {
  readonly mode: YieldExecutionMode;
  /** Whether a new operation of `action` may start now. */
  allows(action: YieldAction): boolean;
  /** For the deposit and withdrawal routes before any work: throws 409 YIELD_DISABLED when refused. */
  assertAllowed(action: YieldAction): void;
}

export function createYieldExecutionSwitch(mode: YieldExecutionMode): YieldExecutionSwitch {
  const allows = (action: YieldAction) => mode === 'enabled' || (mode === 'withdrawals-only' && action === 'withdraw');
  return {
    mode,
    allows,
    assertAllowed(action) {
      if (!allows(action)) throw yieldDisabled(action);
    },
  };
}

/** The default when YIELD_EXECUTION is unset: enabled locally, off where real funds can move until an operator turns it on. */
export const defaultYieldExecutionMode = (appEnv: 'local' | 'beta' | 'production'): YieldExecutionMode => (appEnv === 'local' ? 'enabled' : 'disabled');
