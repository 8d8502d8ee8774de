import { describe, expect, it } from 'vitest';
import { consoleSecurityHeaders, contentSecurityPolicy, DEFAULT_HSTS, hstsValue, newNonce, servedOverHttps } from './security-headers.ts';

const directives = (csp: string) => Object.fromEntries(csp.split('; ').map((d) => [d.split(' ')[0]!, d.split(' ').slice(1).join(' ')]));

describe('the console security headers', () => {
  it('a nonce-based CSP: scripts only with the nonce (and what they load), no unsafe-inline, never framed, only its own origin', () => {
    const csp = directives(contentSecurityPolicy('abc=', { https: false, dev: false }));
    expect(csp).toEqual({
      'default-src': "'self'",
      'script-src': "'nonce-abc=' 'strict-dynamic'",
      'style-src': "'self' 'nonce-abc='",
      'img-src': "'self' data:",
      'font-src': "'self'",
      'connect-src': "'self'",
      'frame-src': "'none'",
      'object-src': "'none'",
      'base-uri': "'none'",
      'form-action': "'self'",
      'frame-ancestors': "'none'",
    });
    expect(directives(contentSecurityPolicy('abc=', { https: false, dev: true }))['script-src']).toBe("'nonce-abc=' 'strict-dynamic' 'unsafe-eval'");
    expect(directives(contentSecurityPolicy('abc=', { https: true, dev: false }))).toHaveProperty('upgrade-insecure-requests', '');
  });

  it('fresh 128-bit nonces', () => {
    const nonces = new Set(Array.from({ length: 100 }, newNonce));
    expect(nonces.size).toBe(100);
    for (const nonce of nonces) expect(atob(nonce)).toHaveLength(16);
  });

  it('knows it is served over HTTPS from the URL, the proxy in front or APP_ENV', () => {
    const http = new URL('http://console.internal:3000/');
    expect(servedOverHttps(new URL('https://console.example/'), null, undefined)).toBe(true);
    expect(servedOverHttps(http, 'https', undefined)).toBe(true);
    expect(servedOverHttps(http, 'HTTPS, http', undefined)).toBe(true);
    expect(servedOverHttps(http, 'http', undefined)).toBe(false);
    expect(servedOverHttps(http, null, 'local')).toBe(false);
    expect(servedOverHttps(http, null, undefined)).toBe(false);
    expect(servedOverHttps(http, null, 'production')).toBe(true);
    expect(servedOverHttps(http, null, 'beta')).toBe(true);
  });

  it('HSTS only over HTTPS: one year by default, CONSOLE_HSTS to change it or turn it off', () => {
    expect(hstsValue(false, undefined)).toBeNull();
    expect(hstsValue(false, 'max-age=600')).toBeNull();
    expect(hstsValue(true, undefined)).toBe(DEFAULT_HSTS);
    expect(hstsValue(true, 'off')).toBeNull();
    expect(hstsValue(true, 'max-age=63072000; includeSubDomains; preload')).toBe('max-age=63072000; includeSubDomains; preload');
    expect(hstsValue(true, 'nonsense')).toBe(DEFAULT_HSTS);
  });

  it('every header on an answer', () => {
    const headers = consoleSecurityHeaders({ nonce: 'n', https: true, dev: false, hsts: undefined });
    expect(headers).toMatchObject({
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Strict-Transport-Security': DEFAULT_HSTS,
    });
    for (const feature of ['camera', 'microphone', 'geolocation', 'payment', 'usb']) expect(headers['Permissions-Policy']).toContain(`${feature}=()`);
    expect(headers['Content-Security-Policy']).toContain("frame-ancestors 'none'");
    expect(consoleSecurityHeaders({ nonce: 'n', https: false, dev: false, hsts: undefined })).not.toHaveProperty('Strict-Transport-Security');
  });
});
