import type { Page } from '@playwright/test';
import { callApi, cli, expect, rememberSecret, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * The header's search box, as support meets it: a partner's key and a policy that lets transfers
 * go only to 0x…dEaD are made through the local CLI control route (as an operator would); over
 * REST a wallet is created for an e-mail user, funded, sends 0.002 ETH to 0x…dEaD and has a transfer
 * elsewhere refused. Support then pastes into the search box of the page it is on the wallet's
 * address in other letter case (and opens the wallet), the start of the e-mail in capitals (and
 * reaches that user's records), and the refused request's id (and reaches its request log entry
 * with the deciding rule). A query nothing matches says so.
 */
test.describe.configure({ mode: 'serial' });

const DEAD = '0x000000000000000000000000000000000000dEaD';
const OTHER = '0x1111111111111111111111111111111111111111';
const shared = { apiKey: '', projectId: '', walletId: '', address: '', identifier: '', refusedRequestId: '' };

/** EIP-55 mixes cases; support pastes it in whatever case the ticket had. */
const flipCase = (address: string) => `0x${[...address.slice(2)].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')}`;

async function searchFor(page: Page, query: string) {
  const box = page.getByRole('searchbox', { name: 'Search', exact: true });
  await box.fill(query);
  await box.press('Enter');
  await expect(page).toHaveURL(`/search?q=${encodeURIComponent(query)}`);
  await expect(page.getByRole('heading', { name: 'Search', exact: true })).toBeVisible();
}

const rest = (method: string, urlPath: string, body: unknown) => callApi(shared.apiKey, method, urlPath, body);

test('a partner wallet of an e-mail user sends one transfer and has one refused by policy', async () => {
  const key = await cli('keys.create', { partner: 'local', project: 'search e2e', plan: 'scale', rateLimitPerMinute: 0 });
  shared.apiKey = key.apiKey as string;
  shared.projectId = key.projectId as string;
  rememberSecret(shared.apiKey);
  await cli('policies.apply', {
    projectId: shared.projectId,
    environment: 'development',
    document: {
      id: 'search-e2e',
      schemaVersion: 'permissions.policy.v1',
      version: '1',
      selector: { walletType: 'EVM' },
      metadata: { productMode: 'guardrail' },
      rules: [{ id: 'only-dead', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.to', op: 'nin', value: [DEAD] } }],
    },
  });
  const wallet = await rest('POST', '/v1/wallets', { type: 'EVM', userIdentifier: `searchable.${Date.now()}@example.com`, userIdentifierType: 'EMAIL' });
  expect(wallet.status, JSON.stringify(wallet.body)).toBe(201);
  const address = wallet.body.address as string;
  expect(address).toMatch(/[a-f]/);
  expect(address).toMatch(/[A-F]/);
  Object.assign(shared, { walletId: wallet.body.id as string, address, identifier: wallet.body.userIdentifier as string });
  expect((await rest('POST', '/v1/local/faucet', { walletId: shared.walletId, amount: '1', token: 'native' })).status).toBeLessThan(300);
  const sent = await rest('POST', `/v1/wallets/${shared.walletId}/transfer`, { to: DEAD, value: '2000000000000000', chainId: 84532 });
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  const refused = await rest('POST', `/v1/wallets/${shared.walletId}/transfer`, { to: OTHER, value: '1000', chainId: 84532 });
  expect(refused.status, JSON.stringify(refused.body)).toBe(403);
  expect(refused.body.code).toBe('POLICY_DENIED');
  shared.refusedRequestId = refused.headers.get('x-request-id')!;
  expect(shared.refusedRequestId).toMatch(/^[0-9a-f-]{36}$/);
});

test('support finds the wallet by its address, the user\'s records by the start of the e-mail, and the refused request by its id', async ({ page }) => {
  await signIn(page, stack.support);
  await searchFor(page, flipCase(shared.address));
  const wallets = page.getByRole('region', { name: 'Wallets' });
  await expect(wallets.getByRole('link')).toHaveCount(1);
  await snap(page, 'search-wallet');
  await wallets.getByRole('link', { name: new RegExp(shared.address) }).click();
  await expect(page).toHaveURL(`/wallets/${shared.walletId}`);
  await expect(page.getByRole('heading', { name: 'EVM wallet' })).toBeVisible();
  await expect(page.getByText(shared.address, { exact: true }).first()).toBeVisible();

  // From the wallet page's own header: the start of the e-mail, in capitals, to the user's records.
  const prefix = shared.identifier.slice(0, 14).toUpperCase();
  await searchFor(page, prefix);
  const users = page.getByRole('region', { name: 'Users' });
  const user = users.getByRole('link', { name: shared.identifier, exact: true });
  await expect(user).toBeVisible();
  await snap(page, 'search-user');
  await user.click();
  await expect(page).toHaveURL(`/transactions?project=${shared.projectId}&user=${encodeURIComponent(shared.identifier)}`);
  await expect(page.getByRole('combobox', { name: 'Project' })).toHaveValue(shared.projectId);
  await expect(page.getByTestId('tx-user')).toHaveText([shared.identifier]);
  await expect(page.getByText('0.002 ETH')).toBeVisible();
  await snap(page, 'search-user-records');

  // The request id a partner quotes, from a refused transfer, to its request log entry.
  await searchFor(page, shared.refusedRequestId);
  const requests = page.getByRole('region', { name: 'Requests' });
  await expect(requests.getByRole('link')).toHaveCount(1);
  await requests.getByRole('link', { name: new RegExp(shared.refusedRequestId) }).click();
  await expect(page).toHaveURL(`/request-log?requestId=${shared.refusedRequestId}`);
  const entry = page.getByTestId(`request-${shared.refusedRequestId}`);
  await expect(entry).toContainText('POST /v1/wallets/:walletId/transfer');
  await expect(entry).toContainText('POLICY_DENIED');
  await expect(entry.getByRole('list', { name: 'Deciding rules' })).toHaveText('search-e2e v1 / only-dead');
  await snap(page, 'search-request-log');
});

test('a query nothing matches says so', async ({ page }) => {
  await signIn(page, stack.support);
  await searchFor(page, 'no-such-user-or-record');
  await expect(page.getByText('Nothing found')).toBeVisible();
  await expect(page.getByTestId('search-group')).toHaveCount(0);
});
