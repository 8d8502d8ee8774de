import type { Request, Response } from 'express';
import type { StaffPrincipal } from '@wallet/domain';
import type { Services } from '../services.ts';

export const SESSION_COOKIE = 'wallet_session';
/** Mutations must carry this header: a cross-site form cannot set it, and no CORS preflight is ever approved. */
export const CSRF_HEADER = 'x-csrf-protection';

export interface TrpcContext {
  services: Services;
  staff: StaffPrincipal | null;
  sessionToken: string | undefined;
  /** Whether the request carries the CSRF header (checked for mutations). */
  csrfHeader: boolean;
  requestId: string | null;
  setSessionCookie(token: string, expiresAt: Date): void;
  clearSessionCookie(): void;
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

export function createContextFactory(services: Services, { secureCookies }: { secureCookies: boolean }) {
  const attributes = `Path=/; HttpOnly; SameSite=Lax${secureCookies ? '; Secure' : ''}`;
  return async ({ req, res }: { req: Request; res: Response }): Promise<TrpcContext> => {
    const sessionToken = readCookie(req.headers.cookie, SESSION_COOKIE);
    return {
      services,
      staff: await services.staff.authenticate(sessionToken),
      sessionToken,
      csrfHeader: req.get(CSRF_HEADER) === '1',
      requestId: (res.getHeader('x-request-id') as string | undefined) ?? null,
      setSessionCookie(token, expiresAt) {
        res.append('Set-Cookie', `${SESSION_COOKIE}=${token}; ${attributes}; Expires=${expiresAt.toUTCString()}`);
      },
      clearSessionCookie() {
        res.append('Set-Cookie', `${SESSION_COOKIE}=; ${attributes}; Max-Age=0`);
      },
    };
  };
}
