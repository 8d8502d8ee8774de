import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '../trpc/router.ts';
import { CSRF_HEADER, SESSION_COOKIE } from '../trpc/context.ts';

/**
 * A console client as the browser would be: a tRPC client that keeps the session cookie the API
 * sets and sends the CSRF header (unless told not to). `setCookies` holds every Set-Cookie seen.
 */
export function staffClient(baseUrl: string, options: { csrfHeader?: boolean } = {}) {
  const state = { cookie: undefined as string | undefined, setCookies: [] as string[] };
  const client = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${baseUrl}/trpc`,
        headers: () => ({
          ...(options.csrfHeader === false ? {} : { [CSRF_HEADER]: '1' }),
          ...(state.cookie ? { cookie: state.cookie } : {}),
        }),
        fetch: async (url, init) => {
          const response = await fetch(url, init as RequestInit);
          for (const header of response.headers.getSetCookie()) {
            state.setCookies.push(header);
            const [pair = ''] = header.split(';');
            const eq = pair.indexOf('=');
            if (pair.slice(0, eq) !== SESSION_COOKIE) continue;
            const value = pair.slice(eq + 1);
            state.cookie = value ? `${SESSION_COOKIE}=${value}` : undefined;
          }
          return response;
        },
      }),
    ],
  });
  return {
    client,
    state,
    async signIn(email: string, password: string) {
      return client.auth.signIn.mutate({ email, password });
    },
  };
}

/** The spec error body a tRPC call failed with (`{code, message, ...}`) and its HTTP status. */
export async function trpcFailure(call: Promise<unknown>): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof TRPCClientError) {
      const data = error.data as { httpStatus: number; apiError: Record<string, unknown> };
      return { status: data.httpStatus, body: data.apiError };
    }
    throw error;
  }
  throw new Error('expected the call to fail');
}
