import { startReceiver, verifyWebhook, type Receiver } from '../../apps/api/src/webhooks/testing/receiver.ts';
import { callApiOk, expect, nav, rememberSecret, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * The owner's day: a project and an API key in the console, the key used over REST to create a
 * wallet and make a transfer on the local devnet, the record watched until confirmed, and a
 * webhook endpoint on a local HTTPS receiver (test ping, delivery log, resend).
 */
test.describe.configure({ mode: 'serial' });

let receiver: Receiver;
let apiKey = '';
let webhookSecret = '';
const shared = { walletId: '', txHash: '', transactionId: '' };

test.beforeAll(async () => {
  receiver = await startReceiver();
});
test.afterAll(async () => {
  await receiver?.close();
});

const rest = (method: string, path: string, body?: unknown) => callApiOk(apiKey, method, path, body);

test('empty states, then a project and an API key whose secret is shown once', async ({ page }) => {
  await signIn(page, stack.owner);
  await expect(page.getByText('No project yet').first()).toBeVisible();
  await snap(page, 'overview-empty');
  await nav(page, 'Projects & API keys');
  // Validated in the page with the API's schema before anything is sent.
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.locator('form').getByRole('alert').first()).toBeVisible();
  await page.getByLabel('New project name').fill('e2e shop');
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByText('No API keys in this project')).toBeVisible();

  const form = page.getByRole('form', { name: 'New API key' });
  await form.getByLabel('Plan').selectOption('growth');
  await form.getByLabel('IP allowlist').fill('not-an-ip');
  await form.getByRole('button', { name: 'Create API key' }).click();
  await expect(form.getByRole('alert')).toBeVisible(); // the API refuses the allowlist entry; shown in the page
  await form.getByLabel('IP allowlist').fill('127.0.0.1/32, ::1');
  await form.getByRole('button', { name: 'Create API key' }).click();
  const secret = page.getByTestId('secret-once');
  await expect(secret).toHaveText(/^sk_/);
  apiKey = (await secret.textContent())!.trim();
  rememberSecret(apiKey);
  await snap(page, 'projects-api-key-created');
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByTestId('secret-once')).toHaveCount(0);
  await expect(page.getByText(apiKey)).toHaveCount(0);
  await expect(page.getByText('127.0.0.1/32, ::1')).toBeVisible();
});

test('a webhook endpoint on a local HTTPS receiver: test ping, delivery log, resend', async ({ page }) => {
  await signIn(page, stack.owner);
  await nav(page, 'Webhooks');
  await expect(page.getByText('No endpoint for this key yet')).toBeVisible();
  const form = page.getByRole('form', { name: 'Webhook endpoint' });
  await form.getByLabel('Endpoint URL (HTTPS)').fill(receiver.url.replace('https:', 'http:'));
  await form.getByRole('button', { name: 'Create endpoint' }).click();
  await expect(form.getByRole('alert')).toContainText(/HTTPS/i);
  await form.getByLabel('Endpoint URL (HTTPS)').fill(receiver.url);
  await form.getByRole('button', { name: 'Create endpoint' }).click();
  const secret = page.getByTestId('secret-once');
  await expect(secret).toHaveText(/^whsec_/);
  webhookSecret = (await secret.textContent())!.trim();
  rememberSecret(webhookSecret);
  await page.getByRole('button', { name: 'Done' }).click();

  await page.getByRole('button', { name: 'Send test ping' }).click();
  await expect(page.getByTestId('ping-result')).toContainText('delivered: status 204');
  await receiver.waitFor((requests) => requests.some((r) => r.body.type === 'test.ping'));
  const ping = receiver.requests.find((r) => r.body.type === 'test.ping')!;
  expect(verifyWebhook([webhookSecret], ping.headers, ping.rawBody)).toEqual([webhookSecret]);

  const row = page.getByTestId('delivery').filter({ hasText: 'test.ping' }).first();
  await expect(row).toHaveAttribute('data-status', 'delivered');
  await expect(row.getByTestId('attempts').locator('li')).toHaveCount(1);
  await snap(page, 'webhooks');
  const before = receiver.requests.filter((r) => r.headers['webhook-id'] === ping.headers['webhook-id']).length;
  await row.getByRole('button', { name: 'Resend' }).click();
  await expect(page.getByText('Resent')).toBeVisible();
  await receiver.waitFor((requests) => requests.filter((r) => r.headers['webhook-id'] === ping.headers['webhook-id']).length > before);
  await expect(row.getByTestId('attempts').locator('li')).toHaveCount(2);
  await snap(page, 'webhooks-resent');
});

test('the key over REST: a wallet and a transfer on the local devnet, watched until confirmed in the console', async ({ page }) => {
  const wallet = await rest('POST', '/v1/wallets', { type: 'EVM', userIdentifier: 'alice@example.com', userIdentifierType: 'EMAIL' });
  shared.walletId = wallet.id as string;
  await rest('POST', '/v1/local/faucet', { walletId: shared.walletId, amount: '1', token: 'native' });
  const transfer = await rest('POST', `/v1/wallets/${shared.walletId}/transfer`, {
    to: '0x000000000000000000000000000000000000dEaD',
    value: '1000000000000',
    chainId: 84532,
  });
  shared.txHash = transfer.txHash as string;
  shared.transactionId = transfer.transactionId as string;

  await signIn(page, stack.owner);
  await nav(page, 'Wallets');
  await expect(page.getByTestId(`wallet-${shared.walletId}`)).toBeVisible();
  await snap(page, 'wallets');
  await page.getByLabel('Search wallets').fill('alice@example.com');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByTestId(`wallet-${shared.walletId}`)).toBeVisible();
  await page.getByTestId(`wallet-${shared.walletId}`).getByRole('link').click();
  await expect(page.getByText('not claimed')).toBeVisible();
  await expect(page.getByTestId(`tx-${shared.transactionId}`)).toBeVisible();
  await snap(page, 'wallet-detail');

  await nav(page, 'Transactions');
  await expect(page.getByTestId(`tx-${shared.transactionId}`)).toBeVisible();
  await snap(page, 'transactions');
  await page.getByTestId(`tx-${shared.transactionId}`).getByRole('link').first().click();
  await expect(page).toHaveURL(new RegExp(`/transactions/${shared.transactionId}$`));
  // The monitor resolves it once its block is final (1 s blocks, checks every 5 s).
  await expect(page.getByTestId('tx-status')).toHaveText('confirmed', { timeout: 60_000 });
  // The record's hash, and the monitoring outcome naming it as the attempt that was included.
  await expect(page.getByText(shared.txHash).first()).toBeVisible();
  await expect(page.getByTestId('monitoring')).toContainText(shared.txHash);
  const confirmed = page.getByTestId('tx-delivery').filter({ hasText: 'rest.transaction.confirmed' });
  await expect(confirmed).toContainText('delivered', { timeout: 30_000 });
  await receiver.waitFor((requests) => requests.some((r) => r.body.type === 'rest.transaction.confirmed' && r.body.data.transactionId === shared.transactionId));
  await snap(page, 'transaction-record');

  await page.goto('/');
  await expect(page.getByRole('img', { name: /Broadcasts per day/ })).toBeVisible();
  // The signer process beside the API answers (it holds every key).
  await expect(page.getByTestId('signer-status')).toContainText(/Signer: reachable \(\d+\.\d ms\)/);
  await snap(page, 'overview');
});

test('support: read-only console (no write buttons, the API refuses writes); from a hash alone to the record, its wallet, monitoring and deliveries', async ({ page }) => {
  await signIn(page, stack.support);
  await expect(page.getByTestId('whoami')).toContainText('support');

  await nav(page, 'Projects & API keys');
  await expect(page.getByRole('cell', { name: /e2e shop/ })).toBeVisible();
  await expect(page.getByText('127.0.0.1/32, ::1')).toBeVisible();
  for (const name of ['Create project', 'Create API key', 'Rotate', 'Revoke', 'Edit']) await expect(page.getByRole('button', { name, exact: true })).toHaveCount(0);
  await snap(page, 'support-projects');

  await nav(page, 'Webhooks');
  await expect(page.getByTestId('delivery').first()).toBeVisible();
  for (const name of ['Send test ping', 'Rotate secret', 'Resend', 'Save endpoint']) await expect(page.getByRole('button', { name })).toHaveCount(0);
  await expect(page.getByLabel('Endpoint URL (HTTPS)')).toBeDisabled();
  await snap(page, 'support-webhooks');

  // The API refuses writes from a support session, whatever the page shows.
  const projects = await page.request.get('/trpc/projects.list');
  const projectId = ((await projects.json()) as { result: { data: { projectId: string }[] } }).result.data[0]!.projectId;
  const keys = await page.request.get(`/trpc/apiKeys.list?input=${encodeURIComponent(JSON.stringify({ projectId }))}`);
  const apiKeyId = ((await keys.json()) as { result: { data: { apiKeyId: string }[] } }).result.data[0]!.apiKeyId;
  const writes: [string, unknown][] = [
    ['projects.create', { name: 'nope' }],
    ['apiKeys.create', { projectId, environment: 'development', plan: 'free' }],
    ['apiKeys.revoke', { apiKeyId }],
    ['webhooks.testPing', { apiKeyId }],
    ['webhooks.rotateSecret', { apiKeyId }],
  ];
  for (const [procedure, input] of writes) {
    const response = await page.request.post(`/trpc/${procedure}`, { headers: { 'x-csrf-protection': '1' }, data: input });
    expect(response.status(), procedure).toBe(403);
    const body = (await response.json()) as { error: { data: { httpStatus: number; apiError: { code: string } } } };
    expect(body.error.data.apiError.code, procedure).toBe('FORBIDDEN');
  }

  // Given only the transaction hash: the console's search...
  await nav(page, 'Transactions');
  await page.getByLabel('Transaction hash').fill(shared.txHash.toUpperCase().replace('0X', '0x'));
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(page).toHaveURL(new RegExp(`/transactions/${shared.transactionId}$`));
  await expect(page.getByTestId('tx-status')).toHaveText('confirmed');
  await expect(page.getByTestId('monitoring')).toBeVisible();
  await expect(page.getByTestId('tx-delivery').filter({ hasText: 'rest.transaction.confirmed' })).toContainText('delivered');
  await expect(page.getByRole('button', { name: 'Resend' })).toHaveCount(0);
  await snap(page, 'support-transaction-record');
  await page.getByRole('link', { name: shared.walletId }).click();
  await expect(page).toHaveURL(new RegExp(`/wallets/${shared.walletId}$`));
  await expect(page.getByText('alice@example.com')).toBeVisible();

  // ...and GraphQL, with the same session.
  const answer = await page.request.post('/graphql', {
    data: {
      query: `query ($hash: String!) { transactionByHash(hash: $hash) {
        transactionId status hash wallet { id address userIdentifier }
        monitoring { state chainOutcome winningHash winningStatus }
        webhookDeliveries { eventId type status attempts { statusCode } } } }`,
      variables: { hash: shared.txHash },
    },
  });
  expect(answer.status()).toBe(200);
  const { data } = (await answer.json()) as { data: { transactionByHash: { transactionId: string; status: string; wallet: { id: string }; webhookDeliveries: { type: string; status: string }[] } } };
  expect(data.transactionByHash).toMatchObject({ transactionId: shared.transactionId, status: 'confirmed', wallet: { id: shared.walletId } });
  expect(data.transactionByHash.webhookDeliveries).toContainEqual(expect.objectContaining({ type: 'rest.transaction.confirmed', status: 'delivered' }));
});
