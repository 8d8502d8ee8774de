import type { Page } from '@playwright/test';
import { callApiOk, expect, nav, newProjectWithKey, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * Yield in the console: deposits made over REST on the local devnet's pool, seen by an owner on the
 * project-wide list (filtered by status) and on the wallet page with their steps linking to their
 * records and the positions per market; the owner cancels a deposit still queued behind the others
 * (one operation per wallet and chain runs at a time). A support account sees the same and has no
 * Cancel button, and the API refuses its cancellation.
 */
test.describe.configure({ mode: 'serial' });

const PROJECT = 'yield e2e';
const POOL = 'poolprov-v3:84532:usdc';
const VAULT = 'vaultprov-v2-base-sepolia-demo-usdc';
const shared = { apiKey: '', walletId: '', first: '', cancelled: '', paused: '' };

interface Operation {
  id: string;
  status: string;
  transactions: { phase: string; transactionId: string; hash: string }[];
}

const rest = (method: string, path: string, body?: unknown, idempotencyKey?: string) =>
  callApiOk(shared.apiKey, method, path, body, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});

async function fundedWallet(userIdentifier: string) {
  const wallet = await rest('POST', '/v1/wallets', { type: 'EVM', userIdentifier, userIdentifierType: 'EMAIL' });
  for (const [token, amount] of [['native', '1'], ['usdc', '50']]) await rest('POST', '/v1/local/faucet', { walletId: wallet.id, amount, token });
  return wallet.id as string;
}

const deposit = async (walletId: string, amount: string, key: string) =>
  (await rest('POST', `/v1/wallets/${walletId}/yield/deposits`, { marketId: POOL, amount }, key)).id as string;

async function openYield(page: Page) {
  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await nav(page, 'Yield operations');
  await expect(page.getByRole('heading', { name: 'Yield operations', exact: true })).toBeVisible();
}

const row = (page: Page, id: string) => page.getByTestId(`yield-${id}`);

test('an owner cancels a queued deposit, filters the project list by status, and follows a confirmed deposit\'s steps to their records', async ({ page }) => {
  await signIn(page, stack.owner);
  shared.apiKey = await newProjectWithKey(page, PROJECT);

  shared.walletId = await fundedWallet('yield@example.com');
  // The first deposit runs; the others wait for it and each other (about 6 s each), so the last stays pending for a while.
  shared.first = await deposit(shared.walletId, '5', `e2e-yield-1-${shared.walletId}`);
  for (const n of [2, 3]) await deposit(shared.walletId, '1', `e2e-yield-${n}-${shared.walletId}`);
  shared.cancelled = await deposit(shared.walletId, '1', `e2e-yield-4-${shared.walletId}`);
  // A vault withdrawal of everything from a wallet without shares pauses (requires_action) before signing anything.
  const other = await fundedWallet('yield-paused@example.com');
  shared.paused = (await rest('POST', `/v1/wallets/${other}/yield/withdrawals`, { marketId: VAULT, amount: 'all' }, `e2e-yield-5-${other}`)).id as string;

  await openYield(page);
  const pending = row(page, shared.cancelled);
  await expect(pending).toHaveAttribute('data-status', 'pending');
  page.once('dialog', (dialog) => void dialog.accept());
  await pending.getByRole('button', { name: 'Cancel' }).click();
  await expect(pending).toHaveAttribute('data-status', 'cancelled');
  await expect(pending.getByRole('button', { name: 'Cancel' })).toHaveCount(0);
  expect(((await rest('GET', `/v1/wallets/${shared.walletId}/yield/operations/${shared.cancelled}`)) as unknown as Operation).status).toBe('cancelled');

  await expect(row(page, shared.paused)).toHaveAttribute('data-status', 'requires_action', { timeout: 60_000 });
  await expect(row(page, shared.paused).getByRole('button', { name: 'Cancel' })).toBeVisible();
  await snap(page, 'yield-operations');

  const status = page.getByLabel('Yield status');
  await status.selectOption('cancelled');
  await expect(row(page, shared.cancelled)).toBeVisible();
  await expect(row(page, shared.first)).toHaveCount(0);
  await expect(row(page, shared.paused)).toHaveCount(0);
  await status.selectOption('requires_action');
  await expect(row(page, shared.paused)).toBeVisible();
  await expect(row(page, shared.cancelled)).toHaveCount(0);
  await status.selectOption('confirmed');
  await expect(row(page, shared.first)).toBeVisible({ timeout: 90_000 });
  await expect(row(page, shared.cancelled)).toHaveCount(0);
  await snap(page, 'yield-operations-confirmed');

  const first = (await rest('GET', `/v1/wallets/${shared.walletId}/yield/operations/${shared.first}`)) as unknown as Operation;
  expect(first.transactions.map((t) => t.phase)).toEqual(['approval', 'action']);
  await row(page, shared.first).getByRole('link').first().click();
  await expect(page).toHaveURL(new RegExp(`/wallets/${shared.walletId}$`));
  const yieldSection = page.getByRole('region', { name: 'Yield operations' });
  const confirmed = yieldSection.getByTestId(`yield-${shared.first}`);
  await expect(confirmed).toHaveAttribute('data-status', 'confirmed');
  await expect(yieldSection.getByTestId(`yield-${shared.cancelled}`)).toHaveAttribute('data-status', 'cancelled');
  await expect(page.getByTestId(`position-${POOL}`)).toContainText(/(?:^|\D)(?:[5-9]|\d{2,})(?:\.\d+)? USDC/);
  await expect(page.getByTestId(`position-${VAULT}`)).toContainText(/(?:^|\D)0 USDC/);
  await snap(page, 'wallet-yield');

  const approval = confirmed.getByTestId('yield-step-approval');
  await expect(approval).toContainText('confirmed');
  await expect(confirmed.getByTestId('yield-step-action')).toContainText('confirmed');
  await approval.getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/transactions/${first.transactions[0]!.transactionId}$`));
  await expect(page.getByTestId('tx-status')).toHaveText('confirmed');
  // The step's record is under managed retry: its one attempt is the step's own transaction, included.
  const attempt = page.getByTestId('tx-attempt');
  await expect(attempt).toHaveCount(1);
  await expect(attempt).toContainText(first.transactions[0]!.hash);
  await expect(attempt.getByTestId('tx-attempt-outcome')).toHaveText('included');
});

test('support: the same operations and positions, no Cancel button, and the API refuses the cancellation', async ({ page }) => {
  await signIn(page, stack.support);
  await openYield(page);
  await expect(row(page, shared.paused)).toHaveAttribute('data-status', 'requires_action');
  await expect(row(page, shared.cancelled)).toHaveAttribute('data-status', 'cancelled');
  await expect(row(page, shared.first)).toHaveAttribute('data-status', 'confirmed');
  await expect(page.getByRole('button', { name: 'Cancel' })).toHaveCount(0);
  await snap(page, 'support-yield-operations');

  const refused = await page.request.post('/trpc/yield.cancel', { headers: { 'x-csrf-protection': '1' }, data: { operationId: shared.paused } });
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as { error: { data: { apiError: { code: string } } } }).error.data.apiError.code).toBe('FORBIDDEN');

  await page.goto(`/wallets/${shared.walletId}`);
  const yieldSection = page.getByRole('region', { name: 'Yield operations' });
  await expect(yieldSection.getByTestId(`yield-${shared.first}`).getByTestId('yield-step-action')).toContainText('confirmed');
  await expect(page.getByTestId(`position-${POOL}`)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Cancel' })).toHaveCount(0);
  await snap(page, 'support-wallet-yield');

  const answer = await page.request.post('/graphql', {
    data: { query: `{ yieldOperation(id: "${shared.first}") { status transactions { phase transaction { transactionId intentKind status } } } }` },
  });
  const { data } = (await answer.json()) as { data: { yieldOperation: { status: string; transactions: { phase: string; transaction: { intentKind: string; status: string } }[] } } };
  expect(data.yieldOperation.status).toBe('confirmed');
  expect(data.yieldOperation.transactions.map((t) => [t.phase, t.transaction.intentKind, t.transaction.status])).toEqual([
    ['approval', 'yield', 'confirmed'],
    ['action', 'yield', 'confirmed'],
  ]);
});
