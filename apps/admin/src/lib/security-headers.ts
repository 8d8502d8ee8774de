/**
 * The console's security headers (src/proxy.ts sets them on every answer; docs/operations.md,
 * "Security headers"). Pure, so the unit tests and the proxy share one definition.
 */

/** What `Strict-Transport-Security` says when `CONSOLE_HSTS` does not: one year. */
export const DEFAULT_HSTS = 'max-age=31536000';

/** A fresh CSP nonce: 128 random bits, base64. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}

/**
 * Whether the console is served over HTTPS: the request came over TLS, or the reverse proxy in front
 * says so (`X-Forwarded-Proto: https`), or APP_ENV is `beta` or `production`, where the session
 * cookie is `Secure` (the API's secure-cookie setting), so the console can only work over HTTPS.
 */
export function servedOverHttps(url: URL, forwardedProto: string | null, appEnv: string | undefined): boolean {
  if (url.protocol === 'https:') return true;
  if (forwardedProto?.split(',')[0]?.trim().toLowerCase() === 'https') return true;
  return appEnv === 'beta' || appEnv === 'production';
}

/**
 * The `Strict-Transport-Security` value (null: none): `CONSOLE_HSTS` when it is a `max-age=…`
 * value, nothing when it is `off`, DEFAULT_HSTS otherwise; only ever when served over HTTPS.
 */
export function hstsValue(https: boolean, setting: string | undefined): string | null {
  const configured = setting?.trim();
  if (!https || configured?.toLowerCase() === 'off') return null;
  return configured && /^max-age=\d+(\s*;\s*(includeSubDomains|preload))*$/i.test(configured) ? configured : DEFAULT_HSTS;
}

/**
 * The Content-Security-Policy of every console answer. Scripts: only the ones Next.js renders with
 * this request's nonce, and what they load ('strict-dynamic'); never inline ones without it, never
 * eval outside `next dev` (React uses it there for error stacks). Styles: the console's own
 * stylesheet (Tailwind, from /_next/static) and the inline <style> Next.js renders with the nonce;
 * no 'unsafe-inline', since the console sets style values only from the browser (through the CSSOM,
 * which CSP does not govern) and renders no style attribute on the server. The browser talks only
 * to the console's own origin: /trpc and /graphql are forwarded to the API by the console's route
 * handlers (src/lib/proxy.ts), so connect-src is 'self' alone.
 */
export function contentSecurityPolicy(nonce: string, options: { https: boolean; dev: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'nonce-${nonce}' 'strict-dynamic'${options.dev ? " 'unsafe-eval'" : ''}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(options.https ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}

/** Browser features the console never uses, all turned off. */
export const PERMISSIONS_POLICY = [
  'accelerometer=()',
  'autoplay=()',
  'camera=()',
  'display-capture=()',
  'geolocation=()',
  'gyroscope=()',
  'hid=()',
  'magnetometer=()',
  'microphone=()',
  'midi=()',
  'payment=()',
  'publickey-credentials-get=()',
  'screen-wake-lock=()',
  'serial=()',
  'usb=()',
  'xr-spatial-tracking=()',
].join(', ');

/** Every header of a console answer, the CSP included. */
export function consoleSecurityHeaders(options: { nonce: string; https: boolean; dev: boolean; hsts: string | undefined }): Record<string, string> {
  const hsts = hstsValue(options.https, options.hsts);
  return {
    'Content-Security-Policy': contentSecurityPolicy(options.nonce, options),
    'X-Frame-Options': 'DENY',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'Permissions-Policy': PERMISSIONS_POLICY,
    'Cross-Origin-Opener-Policy': 'same-origin',
    ...(hsts ? { 'Strict-Transport-Security': hsts } : {}),
  };
}
