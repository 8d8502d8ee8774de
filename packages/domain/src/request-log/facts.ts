import type { ApiError } from '../errors.ts';
import type { DecidingRule } from './ports.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `value` when it is a uuid string (the log's id columns are uuid: anything else would fail its batch), else null. */
export const uuidOrNull = (value: unknown): string | null => (typeof value === 'string' && UUID.test(value) ? value : null);

/** What the request log keeps of a refusal: its code, deciding rules and the ids its body names. */
export interface RefusalFacts {
  code: string;
  deniedBy: DecidingRule[] | null;
  transactionId: string | null;
  caseId: string | null;
}

export function refusalFacts(error: ApiError): RefusalFacts {
  return {
    code: error.code,
    deniedBy: error.decidingRules && error.decidingRules.length > 0 ? error.decidingRules : null,
    transactionId: uuidOrNull(error.extra.transactionId),
    caseId: uuidOrNull(error.extra.caseId),
  };
}
