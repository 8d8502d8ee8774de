import { ApiError } from '@wallet/domain';

/** The spec code of each client status a transport library answers itself; INVALID_REQUEST for the others (405, 408, 415, ...). */
const codeByStatus: Record<number, string> = { 401: 'UNAUTHORIZED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 409: 'CONFLICT', 413: 'PAYLOAD_TOO_LARGE' };

/** Both `/trpc` and `/graphql` read at most this much of a request body, as `/v1` does. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * A client error (4xx) that tRPC, GraphQL Yoga or graphql-js raised itself (a method or content
 * type they refuse, a body they cannot parse, an oversized one, a document that does not
 * validate), as the spec's `{code, message}` with its HTTP status: the same body whichever
 * transport refused the request.
 */
export function clientError(status: number, message: string): ApiError {
  if (status === 413) return new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body is larger than 1 MB');
  return new ApiError(status, codeByStatus[status] ?? 'INVALID_REQUEST', message);
}
