import { NextResponse, type NextRequest } from 'next/server';
import { consoleSecurityHeaders, newNonce, servedOverHttps } from '@/lib/security-headers';

/**
 * Next.js Proxy (the former middleware), on every request: a fresh nonce and the console's
 * security headers (lib/security-headers.ts). Next.js reads the nonce from the request's
 * Content-Security-Policy header and puts it on every script and style it renders, which is why
 * every page renders per request (the root layout awaits connection()). Sessions are checked by the
 * API behind /trpc, not here.
 */
export function proxy(request: NextRequest) {
  const nonce = newNonce();
  const https = servedOverHttps(request.nextUrl, request.headers.get('x-forwarded-proto'), process.env.APP_ENV);
  const headers = consoleSecurityHeaders({ nonce, https, dev: process.env.NODE_ENV === 'development', hsts: process.env.CONSOLE_HSTS });
  const forwarded = new Headers(request.headers);
  forwarded.set('Content-Security-Policy', headers['Content-Security-Policy']!);
  const response = NextResponse.next({ request: { headers: forwarded } });
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}
