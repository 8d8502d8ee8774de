/**
 * Whether a service-built transfer gets managed automatic retry, and its fee ceiling: the request's
 * `autoRetry` wins, else the project's default (console), else the built-in default. The ceiling is
 * chosen the same way, field by field: the request's, else the project's, else the built-in one.
 * Chain-neutral: the caller says what the built-in default is for its chain (EVM: on, 10 times the
 * first attempt's maxFeePerGas) and keeps what makes a transfer ineligible (pinned fees, legacy type).
 */

/** The request's `autoRetry` option, as the transfer body gives it. */
export interface AutoRetryRequestOption {
  enabled: boolean;
  maxFeePerGas?: string | undefined;
}

/** A project's default for its transfers (null ceiling: the built-in one). */
export interface ProjectAutoRetryDefault {
  enabled: boolean;
  maxFeePerGas: string | null;
}

export interface BuiltInAutoRetry {
  enabled: boolean;
  ceiling: string;
}

export type AutoRetryDecision = { enabled: true; ceiling: string } | { enabled: false; ceiling: null };

export function decideAutoRetry(
  request: AutoRetryRequestOption | undefined,
  project: ProjectAutoRetryDefault | null,
  builtIn: BuiltInAutoRetry,
): AutoRetryDecision {
  const enabled = autoRetrySwitch(request, project, builtIn.enabled);
  if (!enabled) return { enabled: false, ceiling: null };
  return { enabled: true, ceiling: request?.maxFeePerGas ?? project?.maxFeePerGas ?? builtIn.ceiling };
}

/** The switch alone (a Solana transfer has no fee ceiling): the request's, else the project's, else the built-in one. */
export function autoRetrySwitch(request: AutoRetryRequestOption | undefined, project: ProjectAutoRetryDefault | null, builtIn: boolean): boolean {
  return request?.enabled ?? project?.enabled ?? builtIn;
}
