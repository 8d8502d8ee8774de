import type { Environment, Plan } from '../ports.ts';

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
}
