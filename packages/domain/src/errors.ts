import type { DecidingRule } from './request-log/ports.ts';

/**
 * The one error type of the service. Every transport maps it once to the spec's
 * error body `{ code, message, ...extra }` with `status` as the HTTP status.
 */
export class ApiError extends Error {
  /**
   * The request may run again under the same Idempotency-Key: the idempotency store releases the
   * key instead of storing this answer (POLICY_REVIEW_REQUIRED: the identical resend after
   * approval must sign; a case CONFLICT must not block the original request's resend).
   */
  releasesIdempotencyKey = false;
  /**
   * The request was refused because its Idempotency-Key belongs to another request: it must change
   * nothing under that key, so its claim is deleted rather than stored or released to it.
   */
  leavesIdempotencyKeyAlone = false;
  /**
   * A policy refusal's deciding rules, for the request log (POLICY_DENIED's `deniedBy` rules, or
   * the requirements of the approval case behind POLICY_REVIEW_REQUIRED); never part of the body.
   */
  decidingRules: DecidingRule[] | null = null;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toBody(): Record<string, unknown> {
    return { code: this.code, message: this.message, ...this.extra };
  }
}

export const invalidRequest = (message: string, extra?: Record<string, unknown>) =>
  new ApiError(400, 'INVALID_REQUEST', message, extra);

/** One body for missing, malformed and foreign ids, so existence never leaks across projects. */
export const notFound = (what = 'Resource') => new ApiError(404, 'NOT_FOUND', `${what} not found`);

export const conflict = (message: string, extra?: Record<string, unknown>) =>
  new ApiError(409, 'CONFLICT', message, extra);

export const unauthorized = (message: string) => new ApiError(401, 'UNAUTHORIZED', message);

export const forbidden = (message: string) => new ApiError(403, 'FORBIDDEN', message);

export const internalError = () =>
  new ApiError(500, 'INTERNAL_ERROR', 'Internal server error; retry with backoff');
