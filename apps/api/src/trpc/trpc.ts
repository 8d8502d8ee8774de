import { initTRPC, TRPCError } from '@trpc/server';
import { ApiError, forbidden, internalError, requireWriteAccess, unauthorized, validationError, type StaffPrincipal } from '@wallet/domain';
import { ZodError } from 'zod';
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

/** The spec's error body for any error a procedure ends with: the same `{code, message, ...}` REST answers. */
export function apiErrorOf(error: TRPCError): ApiError {
  const cause = error.cause;
  if (cause instanceof ApiError) return cause;
  if (cause instanceof ZodError) return validationError(cause);
  if (error.code === 'UNAUTHORIZED') return unauthorized(error.message);
  if (error.code === 'NOT_FOUND') return new ApiError(404, 'NOT_FOUND', 'Procedure not found');
  if (error.code === 'BAD_REQUEST' || error.code === 'PARSE_ERROR') return new ApiError(400, 'INVALID_REQUEST', error.message);
  if (error.code === 'METHOD_NOT_SUPPORTED') return new ApiError(405, 'INVALID_REQUEST', error.message);
  return internalError();
}

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

/** Signed-in staff of any role: reads are scoped to `ctx.staff.partnerId`. */
export const staffProcedure = publicProcedure.use(({ ctx, next }) => {
  if (!ctx.staff) throw new TRPCError({ code: 'UNAUTHORIZED', message: 'Sign in first', cause: unauthorized('Sign in first') });
  return next({ ctx: { ...ctx, staff: ctx.staff as StaffPrincipal } });
});

/** Owners and developers: support staff get 403 FORBIDDEN from every mutation built on this. */
export const writeProcedure = staffProcedure.use(({ ctx, next }) => {
  requireWriteAccess(ctx.staff);
  return next();
});
