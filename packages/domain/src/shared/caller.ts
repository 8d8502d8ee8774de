import type { Environment, Plan } from '../ports.ts';
import type { PolicyActor } from '../policies/ports.ts';

/** Who is calling: established by authentication, passed to every use case. */
export interface Caller {
  partnerId: string;
  projectId: string;
  apiKeyId: string;
  environment: Environment;
  plan: Plan;
  requestId: string | null;
  /** The request's Idempotency-Key, when it carries one (broadcasting use cases record it). */
  idempotencyKey?: string;
  /**
   * Who acts when it is not the API key: the staff member for whom the console calls a partner use
   * case (revisions and audit rows then name them). Unset for REST requests.
   */
  actor?: PolicyActor;
  /**
   * Signing and transfer routes: SHA-256 of method, path and canonical body as sent (approval
   * cases bind to it, and key on it when there is no Idempotency-Key).
   */
  requestHash?: string;
  /** Signing and transfer routes: the optional `initiatorUserId` of the body (never an approver of its case). */
  initiatorUserId?: string | null;
}
