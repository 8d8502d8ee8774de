import type { Locator, Page } from '@playwright/test';
import { unwrap, waitForTransaction } from '@wallet/client';
import { apiClient, callApi, cli, expect, rememberSecret, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * The console's tables at 1280 px: the transactions list, the request log and the partner review
 * queue keep every row to one line (long hashes, addresses, ids and routes are cut with an ellipsis,
 * the full value in the hover title and a copy button that puts it on the clipboard), the queue's
 * Approve button stays inside the viewport and the table, and an absent value reads "none", never
 * "null" (a partner review's case has no authorization scope binding). Data is made over REST with
 * a key and a policy of the owner's partner (the local CLI control route).
 */
test.use({ viewport: { width: 1280, height: 800 }, permissions: ['clipboard-read', 'clipboard-write'] });

// Its own name per worker: a failed test restarts the worker, and beforeAll makes its data again.
const PROJECT = `table layout e2e ${Math.random().toString(36).slice(2, 8)}`;
const DEAD = '0x000000000000000000000000000000000000dEaD';
const LARGE = '2000000000000000'; // 0.002 ETH: the policy sends it to the partner's review
const POLICY = {
  id: 'table-layout-review',
  schemaVersion: 'permissions.policy.v1',
  version: '1',
  selector: { walletType: 'EVM', chainId: ['84532'] },
  metadata: { productMode: 'guardrail' },
  rules: [{ id: 'review-large', effect: 'require_approval', actions: 'all', condition: { fact: 'request.value.baseUnits', op: 'gt', value: '1000000000000000' } }],
};
const shared = { apiKey: '', apiKeyId: '', walletId: '', transactionId: '', hash: '', refusedRequestId: '', to: '' };

async function fundedWallet(userIdentifier: string): Promise<string> {
  const client = apiClient(shared.apiKey);
  const wallet = await unwrap(client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier, userIdentifierType: 'EMAIL' } }));
  await unwrap(client.POST('/v1/local/faucet', { body: { walletId: wallet.id, amount: '1', token: 'native' } }));
  return wallet.id;
}

/**
 * Every body row of the table is one line high. A row's one-line height is computed from its cells'
 * styles: the cell's vertical padding plus the tallest one-line box inside it (an element's line
 * height plus its own vertical padding and border: a line of text, a badge, a button), and the
 * row's border. Half a line of slack covers baseline alignment; a wrapped cell adds a whole line.
 */
async function expectOneLineRows(table: Locator) {
  const rows = await table.locator('tbody > tr').evaluateAll((trs) =>
    trs.map((tr) => {
      const px = (value: string) => Number.parseFloat(value) || 0;
      const lineOf = (style: CSSStyleDeclaration) => (style.lineHeight === 'normal' ? px(style.fontSize) * 1.2 : px(style.lineHeight));
      const boxOf = (el: Element) => {
        const s = getComputedStyle(el);
        return lineOf(s) + px(s.paddingTop) + px(s.paddingBottom) + px(s.borderTopWidth) + px(s.borderBottomWidth);
      };
      let bound = 0;
      let slack = Infinity;
      for (const td of Array.from(tr.querySelectorAll(':scope > td'))) {
        const s = getComputedStyle(td);
        const inner = Math.max(lineOf(s), ...Array.from(td.querySelectorAll('*')).map(boxOf));
        bound = Math.max(bound, inner + px(s.paddingTop) + px(s.paddingBottom) + px(s.borderTopWidth) + px(s.borderBottomWidth));
        slack = Math.min(slack, lineOf(s) / 2);
      }
      const trStyle = getComputedStyle(tr);
      bound += px(trStyle.borderTopWidth) + px(trStyle.borderBottomWidth);
      return { id: tr.getAttribute('data-testid') ?? tr.textContent?.slice(0, 40), height: tr.getBoundingClientRect().height, bound: bound + slack };
    }),
  );
  expect(rows.length).toBeGreaterThan(0);
  // For the report: how wide the table is against its scroll container (wider scrolls, the action column stays).
  const widths = await table.evaluate((t) => `table ${t.scrollWidth} px in a ${t.parentElement!.clientWidth} px container`);
  test.info().annotations.push({ type: 'table width', description: widths });
  for (const row of rows) expect.soft(row.height, `row ${row.id}: ${row.height} px high, one line is at most ${row.bound} px`).toBeLessThanOrEqual(row.bound);
}

/** The value's full text is its hover title, and its copy button puts exactly that on the clipboard and says so. */
async function expectCopyable(page: Page, scope: Locator, value: string, label: string) {
  const shown = scope.getByTitle(value, { exact: true });
  await expect(shown).toHaveCount(1);
  await shown.hover();
  await page.evaluate(() => navigator.clipboard.writeText(''));
  const copy = scope.getByRole('button', { name: `Copy ${label}` });
  await copy.click();
  await expect(copy).toHaveText('Copied');
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
}

async function expectNoNull(page: Page) {
  await expect.soft(page.locator('main')).not.toContainText(/\b(null|undefined)\b/);
}

/** A screenshot for a human to look at: in this test's output folder (test-results) and e2e/artifacts. */
async function screenshot(page: Page, name: string) {
  await page.screenshot({ path: test.info().outputPath(`${name}.png`) });
  await snap(page, name);
}

/** The table's horizontal scroll container (the nearest ancestor that clips its overflow). */
const scrollContainer = (table: Locator) => table.locator('xpath=ancestor::div[contains(@class, "overflow-x-auto")][1]');

test.beforeAll(async () => {
  const key = await cli('keys.create', { partner: 'local', project: PROJECT, plan: 'scale', rateLimitPerMinute: 0 });
  Object.assign(shared, { apiKey: key.apiKey as string, apiKeyId: key.apiKeyId as string });
  rememberSecret(shared.apiKey);
  await cli('policies.apply', { projectId: key.projectId, environment: 'development', document: POLICY });
  shared.walletId = await fundedWallet('table-layout-e2e@example.com');
  const client = apiClient(shared.apiKey);
  const sent = await unwrap(
    client.POST('/v1/wallets/{walletId}/transfer', { params: { path: { walletId: shared.walletId } }, body: { to: DEAD, value: '500000000000000', chainId: 84532 } }),
  );
  shared.transactionId = sent.transactionId;
  const record = await waitForTransaction(client, shared.walletId, sent.transactionId, { timeoutMs: 60_000 });
  expect(record.status).toBe('confirmed');
  shared.hash = record.hash!;
  shared.to = record.to!;
  const refused = await callApi(shared.apiKey, 'POST', '/v1/wallets', { type: 'EVM' });
  expect(refused.status).toBe(400);
  shared.refusedRequestId = refused.headers.get('x-request-id')!;
});

test('the transactions list at 1280 px: one-line rows, the full hash and recipient on hover and copied', async ({ page }) => {
  await signIn(page, stack.owner);
  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await page.goto('/transactions');
  const row = page.getByTestId(`tx-${shared.transactionId}`);
  await expect(row).toBeVisible();
  await screenshot(page, 'table-layout-transactions');
  const table = page.locator('table').filter({ has: row });
  await expectOneLineRows(table);
  // Every column in view: the list does not scroll sideways at 1280 px.
  const [width, room] = await table.evaluate((t) => [t.scrollWidth, t.parentElement!.clientWidth]);
  expect.soft(width, `the transactions table is ${width} px wide in ${room} px`).toBeLessThanOrEqual(room!);
  await expectNoNull(page);
  await expectCopyable(page, row, shared.hash, 'hash');
  await expectCopyable(page, row, shared.to, 'recipient');
});

test('the request log at 1280 px: one-line rows, the full request id and route on hover, the id copied', async ({ page }) => {
  await signIn(page, stack.owner);
  const row = page.getByTestId(`request-${shared.refusedRequestId}`);
  // The log is written in batches within a second.
  await expect(async () => {
    await page.goto(`/request-log?apiKeyId=${shared.apiKeyId}`);
    await expect(row).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await screenshot(page, 'table-layout-request-log');
  await expectOneLineRows(page.locator('table').filter({ has: row }));
  await expect(row.getByTitle('/v1/wallets', { exact: true })).toHaveCount(1);
  await expect.soft(row.getByText('none', { exact: true })).toHaveCount(2); // no links, no deciding rule
  const transfer = page.locator('[data-testid^="request-"]').filter({ hasText: 'POST' }).filter({ has: page.getByTitle('/v1/wallets/:walletId/transfer', { exact: true }) });
  await expect(transfer).toHaveCount(1);
  await expectNoNull(page);
  await expectCopyable(page, row, shared.refusedRequestId, 'request id');
});

test('the partner review queue at 1280 px: one-line rows, Approve inside the viewport and the table; its case shows "none" for the binding', async ({ page }) => {
  const walletId = await fundedWallet('table-layout-review-e2e@example.com');
  const paused = await callApi(shared.apiKey, 'POST', `/v1/wallets/${walletId}/transfer`, { to: DEAD, value: LARGE, chainId: 84532 }, { 'Idempotency-Key': 'table-layout-review' });
  expect(paused.status, JSON.stringify(paused.body)).toBe(403);
  expect(paused.body).toMatchObject({ code: 'POLICY_REVIEW_REQUIRED', reviewId: expect.any(String) });
  const reviewId = paused.body.reviewId as string;

  await signIn(page, stack.owner);
  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await page.goto('/cases');
  const queue = page.getByRole('region', { name: 'Partner reviews' });
  const row = queue.getByTestId(`review-${reviewId}`);
  await expect(row).toHaveAttribute('data-status', 'pending');
  const table = queue.locator('table');
  // Scroll the page (never the table) so the row is in view.
  await row.evaluate((el) => window.scrollBy(0, el.getBoundingClientRect().top - 200));
  await screenshot(page, 'table-layout-partner-reviews');
  await expectOneLineRows(table);
  const approve = row.getByRole('button', { name: `Approve review ${reviewId}` });
  const [button, container] = [await approve.boundingBox(), await scrollContainer(table).boundingBox()];
  expect(button && container).toBeTruthy();
  const inside = (inner: { x: number; y: number; width: number; height: number }, outer: { x: number; y: number; width: number; height: number }) =>
    inner.x >= outer.x && inner.y >= outer.y && inner.x + inner.width <= outer.x + outer.width && inner.y + inner.height <= outer.y + outer.height;
  expect.soft(inside(button!, { x: 0, y: 0, width: 1280, height: 800 }), `Approve at ${JSON.stringify(button)} is outside the 1280x800 viewport`).toBe(true);
  expect.soft(inside(button!, container!), `Approve at ${JSON.stringify(button)} is outside the table's scroll container ${JSON.stringify(container)}`).toBe(true);

  await page.getByRole('button', { name: `Open case ${reviewId}` }).click();
  const detail = page.getByRole('region', { name: 'Case detail' });
  await expect(detail.getByTestId('case-detail')).toHaveAttribute('data-status', 'pending');
  const value = (term: string) => detail.getByText(term, { exact: true }).locator('xpath=following-sibling::dd[1]');
  await expect.soft(value('Binding revision')).toHaveText('none');
  await expect.soft(value('Authorization scope')).toHaveText('none');
  await detail.scrollIntoViewIfNeeded();
  await screenshot(page, 'table-layout-case-without-binding');
  await expectNoNull(page);

  await expectCopyable(page, row, reviewId, 'review id');
  await expectCopyable(page, row, walletId, 'wallet id');
});
