import { callApi, callApiOk, cli, expect, nav, rememberSecret, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * Support follows a partner's quote ("request id X was refused") in the Request log: a transfer is
 * refused by a policy over REST (a key and a policy of the owner's partner made through the local
 * CLI control route, as an operator would), then the support account opens the Request log, filters
 * by the refused request's id, sees its code and the deciding rule, and clicks through to the wallet.
 * Then it pages a key's 130 entries: the newest 100, and "Load more" for the 30 older ones.
 */
test.describe.configure({ mode: 'serial' });

const DEAD = '0x000000000000000000000000000000000000dEaD';
const OTHER = '0x1111111111111111111111111111111111111111';

test('support filters the Request log by a refused transfer\'s request id, sees its code and deciding rule, and opens the wallet', async ({ page }) => {
  const key = await cli('keys.create', { partner: 'local', project: 'request log e2e', plan: 'scale', rateLimitPerMinute: 0 });
  const apiKey = key.apiKey as string;
  rememberSecret(apiKey);
  await cli('policies.apply', {
    projectId: key.projectId,
    environment: 'development',
    document: {
      id: 'recipients-e2e',
      schemaVersion: 'permissions.policy.v1',
      version: '1',
      selector: { walletType: 'EVM' },
      metadata: { productMode: 'guardrail' },
      rules: [{ id: 'only-dead', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.to', op: 'nin', value: [DEAD] } }],
    },
  });
  const wallet = await callApiOk(apiKey, 'POST', '/v1/wallets', { type: 'EVM', userIdentifier: 'request-log-e2e@example.com', userIdentifierType: 'EMAIL' });
  await callApiOk(apiKey, 'POST', '/v1/local/faucet', { walletId: wallet.id, amount: '1', token: 'native' });
  const refused = await callApi(apiKey, 'POST', `/v1/wallets/${wallet.id as string}/transfer`, { to: OTHER, value: '1000', chainId: 84532 });
  expect(refused.status, JSON.stringify(refused.body)).toBe(403);
  const requestId = refused.headers.get('x-request-id')!;
  expect(requestId).toMatch(/^[0-9a-f-]{36}$/);

  await signIn(page, stack.support);
  await nav(page, 'Request log');
  await expect(page.getByRole('heading', { name: 'Request log', exact: true })).toBeVisible();
  const filters = page.getByRole('search', { name: 'Request log filters' });
  await filters.getByLabel('Request id').fill(requestId);
  await filters.getByRole('button', { name: 'Apply filters' }).click();
  await expect(page).toHaveURL(new RegExp(`/request-log\\?requestId=${requestId}$`));

  const entries = page.locator('[data-testid^="request-"]');
  await expect(entries).toHaveCount(1);
  const entry = page.getByTestId(`request-${requestId}`);
  await expect(entry).toContainText('POST /v1/wallets/:walletId/transfer');
  await expect(entry).toContainText('403');
  await expect(entry).toContainText('POLICY_DENIED');
  await expect(entry.getByRole('list', { name: 'Deciding rules' })).toHaveText('recipients-e2e v1 / only-dead');
  await snap(page, 'request-log-refused');

  // The link the search feature uses opens the same filter.
  await page.goto(`/request-log?requestId=${requestId}`);
  await expect(page.getByTestId(`request-${requestId}`)).toContainText('POLICY_DENIED');
  await expect(page.getByRole('search', { name: 'Request log filters' }).getByLabel('Request id')).toHaveValue(requestId);

  await page.getByTestId(`request-${requestId}`).getByRole('link', { name: /^Wallet / }).click();
  await expect(page).toHaveURL(new RegExp(`/wallets/${wallet.id as string}$`));
  await expect(page.getByRole('heading', { name: 'Wallet', exact: true })).toBeVisible();
});

test('the Request log pages past its newest 100 entries with "Load more", on the API\'s cursor, each entry once', async ({ page }) => {
  // 130 refused requests (400, logged with the key) of a key of their own: one page of 100 and 30 more.
  const key = await cli('keys.create', { partner: 'local', project: 'request log paging e2e', plan: 'scale', rateLimitPerMinute: 0 });
  const apiKey = key.apiKey as string;
  rememberSecret(apiKey);
  const sent: string[] = [];
  for (let batch = 0; batch < 130 / 26; batch += 1) {
    const answers = await Promise.all(Array.from({ length: 26 }, () => callApi(apiKey, 'POST', '/v1/wallets', { type: 'EVM' })));
    for (const answer of answers) {
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      sent.push(answer.headers.get('x-request-id')!);
    }
  }
  expect(new Set(sent).size).toBe(130);

  await signIn(page, stack.support);
  const entries = page.locator('[data-testid^="request-"]');
  const loadMore = page.getByRole('button', { name: 'Load more' });
  // The log is written in batches within a second: reload until the last request is on the first page.
  await expect(async () => {
    await page.goto(`/request-log?apiKeyId=${key.apiKeyId as string}`);
    await expect(page.getByTestId(`request-${sent.at(-1)!}`)).toBeVisible({ timeout: 2_000 });
  }).toPass({ timeout: 30_000 });
  await expect(entries).toHaveCount(100);
  await expect(loadMore).toBeVisible();
  const ids = async () => (await entries.evaluateAll((rows) => rows.map((row) => row.getAttribute('data-testid')!))).map((id) => id.slice('request-'.length));
  const first = await ids();

  await loadMore.click();
  await expect(entries).toHaveCount(130);
  await expect(loadMore).toHaveCount(0);
  const all = await ids();
  expect(all.slice(0, 100)).toEqual(first);
  expect(new Set(all).size).toBe(130);
  expect([...all].sort()).toEqual([...sent].sort());
  await snap(page, 'request-log-load-more');
});
