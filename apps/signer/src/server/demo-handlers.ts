/**
 * Test-only handlers (never registered in beta or production, see main.ts): they exercise the
 * transport without keys. `echo` returns its params, `fail` throws a SignerError chosen by its
 * params, `crash` throws a plain Error whose message must never reach the client or the log,
 * `sleep` waits `ms` (to kill a signer mid-request).
 */
import { SignerError } from './errors.ts';
import type { SignerHandler } from './server.ts';

export const DEMO_SECRET_MESSAGE = 'demo secret 0123456789abcdef: must never be logged or answered';

export function createDemoHandlers(): Record<string, SignerHandler> {
  return {
    echo: async (params, context) => ({ params, requestId: context.requestId, client: context.client }),
    fail: async (params) => {
      const p = (params ?? {}) as { code?: string; status?: number; message?: string };
      throw new SignerError(p.code ?? 'DEMO_FAILURE', p.message ?? 'demo failure', p.status ?? 400, { demo: true });
    },
    crash: async () => {
      throw new TypeError(DEMO_SECRET_MESSAGE);
    },
    sleep: async (params) => {
      const ms = Math.min(Number((params as { ms?: number } | null)?.ms ?? 1000), 60_000);
      await new Promise((resolve) => setTimeout(resolve, ms));
      return { slept: ms };
    },
    pid: async () => ({ pid: process.pid }),
  };
}
