import type { Page } from '@playwright/test';
import { expect, newProjectWithKey, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * The header's search box: an owner makes a project and key, a wallet is created over REST for an
 * e-mail user; support pastes the wallet's address in other letter case into the search box of
 * the page it is on, opens the wallet from the results, then finds the user by the start of the
 * e-mail and follows the user's link. A query nothing matches says so.
 */
test.describe.configure({ mode: 'serial' });

const PROJECT = 'search e2e';
const shared = { apiKey: '', walletId: '', address: '', identifier: '' };

/** EIP-55 mixes cases; support pastes it in whatever case the ticket had. */
const flipCase = (address: string) => `0x${[...address.slice(2)].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')}`;

async function searchFor(page: Page, query: string) {
  const box = page.getByRole('searchbox', { name: 'Search', exact: true });
  await box.fill(query);
  await box.press('Enter');
  await expect(page).toHaveURL(`/search?q=${encodeURIComponent(query)}`);
  await expect(page.getByRole('heading', { name: 'Search', exact: true })).toBeVisible();
}

test('an owner creates a project and key; a wallet is created for an e-mail user over REST', async ({ page }) => {
  await signIn(page, stack.owner);
  shared.apiKey = await newProjectWithKey(page, PROJECT);
  const response = await fetch(`${stack.apiUrl}/v1/wallets`, {
    method: 'POST',
    headers: { 'x-api-key': shared.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'EVM', userIdentifier: `searchable.${Date.now()}@example.com`, userIdentifierType: 'EMAIL' }),
  });
  const wallet = (await response.json()) as { id: string; address: string; userIdentifier: string };
  expect(response.status, JSON.stringify(wallet)).toBe(201);
  expect(wallet.address).toMatch(/[a-f]/);
  expect(wallet.address).toMatch(/[A-F]/);
  Object.assign(shared, { walletId: wallet.id, address: wallet.address, identifier: wallet.userIdentifier });
});

test('support finds the wallet by its address in other case and the user by the start of the e-mail', async ({ page }) => {
  await signIn(page, stack.support);
  await searchFor(page, flipCase(shared.address));
  const wallets = page.getByRole('region', { name: 'Wallets' });
  await expect(wallets.getByRole('link')).toHaveCount(1);
  await snap(page, 'search-wallet');
  await wallets.getByRole('link', { name: new RegExp(shared.address) }).click();
  await expect(page).toHaveURL(`/wallets/${shared.walletId}`);
  await expect(page.getByRole('heading', { name: 'EVM wallet' })).toBeVisible();
  await expect(page.getByText(shared.address, { exact: true }).first()).toBeVisible();

  // From the wallet page's own header: the start of the e-mail, in capitals.
  const prefix = shared.identifier.slice(0, 14).toUpperCase();
  await searchFor(page, prefix);
  const users = page.getByRole('region', { name: 'Users' });
  const user = users.getByRole('link', { name: shared.identifier, exact: true });
  await expect(user).toBeVisible();
  await snap(page, 'search-user');
  await user.click();
  await expect(page).toHaveURL(`/transactions?user=${encodeURIComponent(shared.identifier)}`);
});

test('a query nothing matches says so', async ({ page }) => {
  await signIn(page, stack.support);
  await searchFor(page, 'no-such-user-or-record');
  await expect(page.getByText('Nothing found')).toBeVisible();
  await expect(page.getByTestId('search-group')).toHaveCount(0);
});
