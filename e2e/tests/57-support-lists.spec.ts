import type { Page } from '@playwright/test';
import { unwrap, waitForTransaction } from '@wallet/client';
import { apiClient, expect, nav, newProjectWithKey, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * Support's lists: the transactions list filtered by user (typed) and status (picked), its amounts
 * in the token's symbol (0.002 ETH), links that open it pre-filtered (?user=, ?wallet=), and a
 * wallet page with its live native balance (funded by the local faucet) and its records.
 */
test.describe.configure({ mode: 'serial' });

const PROJECT = 'support lists e2e';
const shared = { apiKey: '', alice: '', bob: '', aliceTx: '', bobTx: '' };

/** A wallet funded with 1 ETH by the local faucet that sends `wei` to a burn address (through the typed client); answers the wallet and record ids. */
async function walletWithTransfer(userIdentifier: string, wei: string) {
  const client = apiClient(shared.apiKey);
  const wallet = await unwrap(client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier, userIdentifierType: 'EMAIL' } }));
  await unwrap(client.POST('/v1/local/faucet', { body: { walletId: wallet.id, amount: '1', token: 'native' } }));
  const transfer = await unwrap(
    client.POST('/v1/wallets/{walletId}/transfer', { params: { path: { walletId: wallet.id } }, body: { to: '0x000000000000000000000000000000000000dEaD', value: wei, chainId: 84532 } }),
  );
  return { walletId: wallet.id, transactionId: transfer.transactionId };
}

async function openTransactions(page: Page) {
  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await nav(page, 'Transactions');
  await expect(page.getByRole('heading', { name: 'Transactions', exact: true })).toBeVisible();
}

const row = (page: Page, id: string) => page.getByTestId(`tx-${id}`);

test('support filters the transactions list by user and status and sees formatted amounts', async ({ page }) => {
  await signIn(page, stack.owner);
  shared.apiKey = await newProjectWithKey(page, PROJECT);
  const alice = await walletWithTransfer('alice-support@example.com', '2000000000000000');
  const bob = await walletWithTransfer('bob-support@example.com', '5000000000000000');
  Object.assign(shared, { alice: alice.walletId, aliceTx: alice.transactionId, bob: bob.walletId, bobTx: bob.transactionId });

  await openTransactions(page);
  await expect(row(page, shared.aliceTx)).toBeVisible();
  await expect(row(page, shared.bobTx)).toBeVisible();
  await expect(row(page, shared.aliceTx)).toContainText('0.002 ETH');
  await expect(row(page, shared.bobTx)).toContainText('0.005 ETH');
  await expect(row(page, shared.aliceTx).getByTestId('tx-user')).toHaveText('alice-support@example.com');

  // A prefix of the user, typed in another case.
  await page.getByRole('textbox', { name: 'User' }).fill('ALICE-supp');
  await expect(row(page, shared.bobTx)).toHaveCount(0);
  await expect(row(page, shared.aliceTx)).toBeVisible();
  await expect(page).toHaveURL(/[?&]user=ALICE-supp/);
  await snap(page, 'support-lists-user-filter');

  // A failed filter hides the transfer; its own status shows it.
  await page.getByRole('combobox', { name: 'Status' }).selectOption('failed');
  await expect(page.getByText('No transaction matches these filters')).toBeVisible();
  await expect(page).toHaveURL(/status=failed/);
  // Its status once final (a `submitted` read could turn `confirmed` before the list refreshes).
  const { status } = await waitForTransaction(apiClient(shared.apiKey), shared.alice, shared.aliceTx, { timeoutMs: 30_000 });
  expect(status).toBe('confirmed');
  await page.getByRole('combobox', { name: 'Status' }).selectOption('confirmed');
  await expect(row(page, shared.aliceTx)).toBeVisible();
  await expect(row(page, shared.bobTx)).toHaveCount(0);
});

test('links open the list pre-filtered by user or by wallet', async ({ page }) => {
  await signIn(page, stack.support);
  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await page.goto('/transactions?user=bob-support');
  await expect(row(page, shared.bobTx)).toBeVisible();
  await expect(row(page, shared.aliceTx)).toHaveCount(0);
  await expect(page.getByRole('textbox', { name: 'User' })).toHaveValue('bob-support');

  await page.goto(`/transactions?wallet=${shared.alice}`);
  await expect(row(page, shared.aliceTx)).toBeVisible();
  await expect(row(page, shared.bobTx)).toHaveCount(0);
});

test("a wallet page shows the wallet's live native balance and its records", async ({ page }) => {
  await signIn(page, stack.support);
  await page.goto(`/wallets/${shared.alice}`);
  const balances = page.getByRole('region', { name: 'Balances' });
  // 1 ETH from the faucet, less 0.002 ETH and the transfer's fee.
  await expect(balances.getByTestId('balance-84532-native')).toContainText(/0\.99\d* ETH/);
  await expect(balances.getByTestId('balance-84532-usdc')).toContainText('0 USDC');
  await expect(row(page, shared.aliceTx)).toBeVisible();
  await expect(row(page, shared.aliceTx)).toContainText('0.002 ETH');
  await expect(page.getByRole('region', { name: 'Policies' })).toContainText('No active policy selects this wallet');
  await snap(page, 'support-lists-wallet');
});
