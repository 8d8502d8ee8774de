import { initTRPC, TRPCError } from '@trpc/server';
import { getHTTPStatusCodeFromError } from '@trpc/server/http';
import {
  ApiError,
  CONTROL_CHARACTER_MESSAGE,
  fieldError,
  forbidden,
  internalError,
  invalidRequest,
  requireWriteAccess,
  unauthorized,
  validationError,
  type StaffPrincipal,
} from '@wallet/domain';
import { ZodError } from 'zod';
import { controlCharacterField } from '../http/dispatch.ts';
import { MAX_BODY_DEPTH, nestedDeeperThan } from '../http/pipeline.ts';
import { clientError } from './client-error.ts';
import { CSRF_HEADER, type TrpcContext } from './context.ts';

const codeByStatus: Record<number, TRPCError['code']> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'TOO_MANY_REQUESTS',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * The spec's error body for any error a procedure or the request ends with: the same
 * `{code, message, ...}` REST answers. An error tRPC raised itself keeps the HTTP status of its
 * code (`getHTTPStatusCodeFromError`: UNSUPPORTED_MEDIA_TYPE 415, METHOD_NOT_SUPPORTED 405,
 * PARSE_ERROR 400, ...); anything else that is not an ApiError is a 500 whose message says nothing.
 */
export function apiErrorOf(error: TRPCError): ApiError {
  const cause = error.cause;
  if (cause instanceof ApiError) return cause;
  if (cause instanceof ZodError) return validationError(cause);
  const status = getHTTPStatusCodeFromError(error);
  if (status >= 500) return internalError();
  // tRPC's only NOT_FOUND: no procedure at the path.
  return clientError(status, error.code === 'NOT_FOUND' ? 'Procedure not found' : error.message);
}

/**
 * REST's rule for path and query values (http/dispatch.ts) on a procedure's top-level fields, its
 * arguments (ids, names, filters, cursors, addresses); nested documents (a policy, a dry run's body)
 * are judged by their use cases as REST judges its bodies. So no such id or name reaches a use case
 * or the database.
 */
export { controlCharacterField };

const t = initTRPC.context<TrpcContext>().create({
  errorFormatter({ shape, error }) {
    const apiError = apiErrorOf(error);
    // Never the message of an unexpected error: it may carry internals.
    return { ...shape, message: apiError.message, data: { ...shape.data, stack: undefined, httpStatus: apiError.status, apiError: apiError.toBody() } };
  },
});

/** Domain errors become tRPC errors carrying the ApiError, so the formatter can answer with its body and status. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof ApiError) {
    const apiError = result.error.cause;
    throw new TRPCError({ code: codeByStatus[apiError.status] ?? 'INTERNAL_SERVER_ERROR', message: apiError.message, cause: apiError });
  }
  return result;
});

/** Every mutation needs the CSRF header (see context.ts); queries change nothing. */
const csrf = t.middleware(({ ctx, type, next }) => {
  if (type === 'mutation' && !ctx.csrfHeader) throw forbidden(`Missing ${CSRF_HEADER}: 1 header`);
  return next();
});

export const router = t.router;
export const publicProcedure = t.procedure.use(mapErrors).use(csrf);

/**
 * Signed-in staff of any role: reads are scoped to `ctx.staff.partnerId`. REST's input rules
 * apply before the input is parsed, after the 401 as in REST: a field (an id, a name, a filter)
 * holding a control character, or an input nested deeper than MAX_BODY_DEPTH levels, is a 400
 * INVALID_REQUEST.
 */
export const staffProcedure = publicProcedure.use(async ({ ctx, getRawInput, next }) => {
  if (!ctx.staff) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in first', cause: unauthorized('Sign in first') });
  // A body that is not JSON: the procedure's input parser answers it (400), or nothing reads it (no input).
  const input = await getRawInput().catch(() => undefined);
  const refused = controlCharacterField(input);
  if (refused !== undefined) throw fieldError(refused, CONTROL_CHARACTER_MESSAGE);
  if (nestedDeeperThan(input, MAX_BODY_DEPTH)) throw invalidRequest(`Invalid request: input is nested deeper than ${MAX_BODY_DEPTH} levels`);
  return next({ ctx: { ...ctx, staff: ctx.staff as StaffPrincipal } });
});

/** Owners and developers: support staff get 403 FORBIDDEN from every mutation built on this. */
export const writeProcedure = staffProcedure.use(({ ctx, next }) => {
  requireWriteAccess(ctx.staff);
  return next();
});
