import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from '@playwright/test';
import { callApiOk, cli, expect, rememberSecret, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * Security headers in the real browser: every console page loads under its nonce-based CSP with
 * no violation reported to the page, a page on another origin cannot frame the console, and the
 * API reference at /docs renders (its search worker included) under its own CSP.
 */
test.describe.configure({ mode: 'serial' });

declare global {
  interface Window {
    cspViolations: string[];
  }
}

/** Records every `securitypolicyviolation` of the page's documents, from before their first script. */
async function watchViolations(page: Page) {
  await page.addInitScript(() => {
    window.cspViolations = [];
    document.addEventListener('securitypolicyviolation', (event) => {
      window.cspViolations.push(`${event.effectiveDirective} blocked ${event.blockedURI || 'inline'} (${event.sourceFile}:${event.lineNumber})`);
    });
  });
}
const violations = (page: Page) => page.evaluate(() => window.cspViolations);

/** Opens `path` and answers the document's CSP nonce, checking that the scripts Next rendered carry it. */
async function openUnderCsp(page: Page, path: string): Promise<string> {
  const response = (await page.goto(path))!;
  const csp = response.headers()['content-security-policy'] ?? '';
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
  expect(nonce, `${path}: ${csp}`).toBeTruthy();
  expect(csp, path).toContain("'strict-dynamic'");
  expect(csp, path).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  expect(response.headers()['x-frame-options'], path).toBe('DENY');
  return nonce!;
}

const DEAD = '0x000000000000000000000000000000000000dEaD';

test('every console page loads under its CSP with no violation reported to the page', async ({ page }) => {
  const key = await cli('keys.create', { partner: 'local', project: 'security headers e2e', plan: 'scale', rateLimitPerMinute: 0 });
  rememberSecret(key.apiKey as string);
  const wallet = await callApiOk(key.apiKey as string, 'POST', '/v1/wallets', { type: 'EVM', userIdentifier: `csp-e2e-${Date.now()}@example.com`, userIdentifierType: 'EMAIL' });
  await callApiOk(key.apiKey as string, 'POST', '/v1/local/faucet', { walletId: wallet.id, amount: '1', token: 'native' });
  const transfer = await callApiOk(key.apiKey as string, 'POST', `/v1/wallets/${wallet.id as string}/transfer`, { to: DEAD, value: '1000', chainId: 84532 });

  await watchViolations(page);
  await openUnderCsp(page, '/sign-in');
  await signIn(page, stack.owner);
  const pages: Array<[string, string | RegExp]> = [
    ['/', 'Overview'],
    ['/projects', 'Projects & API keys'],
    ['/wallets', 'Wallets'],
    [`/wallets/${wallet.id as string}`, 'EVM wallet'],
    ['/transactions', 'Transactions'],
    [`/transactions/${transfer.transactionId as string}`, /^Transaction/],
    ['/yield', 'Yield operations'],
    ['/webhooks', 'Webhooks'],
    ['/policies', 'Policies'],
    ['/sponsorship', 'Sponsorship'],
    ['/auto-retry', 'Managed retry'],
    ['/scopes', 'Authorization scopes'],
    ['/approval-configurations', 'Approval configurations'],
    ['/cases', 'Reviews & cases'],
    ['/request-log', 'Request log'],
    ['/search?q=csp-e2e', 'Search'],
    ['/no-such-page', 'Page not found'],
  ];
  // The wallet and transaction pages' headings come from their records (tRPC): rendered, not only served.
  for (const [path, heading] of pages) {
    const nonce = await openUnderCsp(page, path);
    await expect(page.getByRole('heading', { level: 1, name: heading }), path).toBeVisible();
    // The page's scripts ran because each carries this answer's nonce.
    const nonces = await page.locator('script[src^="/_next/"]').evaluateAll((scripts) => scripts.map((script) => (script as HTMLScriptElement).nonce));
    expect(nonces.length, path).toBeGreaterThan(0);
    expect(new Set(nonces), path).toEqual(new Set([nonce]));
    await page.waitForLoadState('networkidle');
    expect(await violations(page), path).toEqual([]);
  }

  // In force, not only sent: an injected inline handler (a typical XSS payload) does not run.
  await page.evaluate(() => {
    const div = document.createElement('div');
    div.innerHTML = '<img src="/no-such-image" onerror="window.cspInjected = true">';
    document.body.append(div);
  });
  await expect.poll(() => violations(page)).toContainEqual(expect.stringMatching(/^script-src-attr blocked inline/));
  expect(await page.evaluate(() => (window as unknown as { cspInjected?: boolean }).cspInjected)).toBeUndefined();
});

test('the console answers its route handlers and assets with the headers too, and HSTS only over HTTPS', async () => {
  const trpc = await fetch(`${stack.consoleUrl}/trpc/auth.me`);
  expect(trpc.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  expect(trpc.headers.get('x-content-type-options')).toBe('nosniff');
  expect(trpc.headers.get('cache-control')).toBe('no-store');
  await trpc.arrayBuffer();
  const http = await fetch(`${stack.consoleUrl}/sign-in`);
  expect(http.headers.get('strict-transport-security')).toBeNull();
  expect(http.headers.get('referrer-policy')).toBe('no-referrer');
  expect(http.headers.get('permissions-policy')).toContain('camera=()');
  const css = /href="(\/_next\/static\/[^"]+\.css)"/.exec(await http.text())![1]!;
  const asset = await fetch(`${stack.consoleUrl}${css}`);
  expect(asset.headers.get('x-content-type-options')).toBe('nosniff');
  await asset.arrayBuffer();
  // Behind a TLS-terminating reverse proxy that says so.
  const https = await fetch(`${stack.consoleUrl}/sign-in`, { headers: { 'x-forwarded-proto': 'https' } });
  expect(https.headers.get('strict-transport-security')).toBe('max-age=31536000');
  expect(https.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
  await https.arrayBuffer();
});

test('a page on another origin that frames the console (or /docs) gets a blocked frame', async ({ page }) => {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<!doctype html><title>Elsewhere</title><h1>Win a prize</h1>` +
        `<iframe id="console" src="${stack.consoleUrl}/sign-in" width="600" height="400"></iframe>` +
        `<iframe id="docs" src="${stack.apiUrl}/docs" width="600" height="400"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const elsewhere = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const framed = page.waitForResponse((response) => response.url() === `${stack.consoleUrl}/sign-in`);
    await page.goto(elsewhere);
    const answer = await framed;
    expect(answer.status()).toBe(200);
    expect(answer.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    await expect(page.getByRole('heading', { name: 'Win a prize' })).toBeVisible();
    // The browser refused to render either answer in its frame: Chromium's error page is there instead.
    const frames = () => page.frames().filter((frame) => frame !== page.mainFrame()).map((frame) => frame.url());
    await expect.poll(frames).toEqual(['chrome-error://chromewebdata/', 'chrome-error://chromewebdata/']);
    await expect(page.frameLocator('#console').getByRole('button', { name: 'Sign in' })).toHaveCount(0);
    await expect(page.frameLocator('#docs').locator('redoc')).toHaveCount(0);
    await snap(page, 'security-framed-console-blocked');
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test('/docs renders under its own CSP, search worker included, with no violation', async ({ page }) => {
  await watchViolations(page);
  const response = (await page.goto(`${stack.apiUrl}/docs`))!;
  expect(response.headers()['content-security-policy']).toContain('worker-src blob:');
  expect(response.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
  await expect(page.getByRole('heading', { name: 'Wallet and signing service', exact: false }).first()).toBeVisible();
  await expect(page.locator('[id$="/operation/createWallet"]')).toHaveCount(1);
  // Redoc's search runs in its blob: worker.
  await page.getByPlaceholder('Search...').fill('transfer');
  await expect(page.locator('[data-role="search:results"] li').first()).toBeVisible();
  await page.waitForLoadState('networkidle');
  expect(await violations(page)).toEqual([]);
});
