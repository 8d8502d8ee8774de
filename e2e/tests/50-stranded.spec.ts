import type { Page } from '@playwright/test';
import { callApiOk, expect, newProjectWithKey, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * A stranded wallet in the console, made from outside: a transaction signed and broadcast over REST
 * at nonce 1 of a wallet that never used nonce 0, so the node queues it for good. The owner sees the
 * wallet page's banner naming nonce 0, sends the gap filler from it and follows it to its record;
 * both transactions confirm and the banner is gone. A support account sees another stranded
 * wallet's banner without the button, and the API refuses its fill. The stack keeps the nonce-gap
 * worker from filling these gaps by itself (support/stack.ts).
 */
test.describe.configure({ mode: 'serial' });

const PROJECT = 'stranded e2e';
const CHAIN_ID = 84532;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const FEES = { maxFeePerGas: '50000000000', maxPriorityFeePerGas: '1000000000', gasLimit: '21000' };
const shared = { apiKey: '', walletId: '', queuedId: '', fillerId: '' };

interface TransactionRecord {
  status: string;
  nonce: number;
  value?: string;
  serviceInitiated?: string;
}

const rest = (method: string, path: string, body?: unknown) => callApiOk(shared.apiKey, method, path, body);

/** A funded EVM wallet with one transaction queued on the node behind the nonce 0 it never used. */
async function strandedWallet(userIdentifier: string) {
  const wallet = await rest('POST', '/v1/wallets', { type: 'EVM', userIdentifier, userIdentifierType: 'EMAIL' });
  const walletId = wallet.id as string;
  await rest('POST', '/v1/local/faucet', { walletId, amount: '1', token: 'native' });
  const queued = await rest('POST', `/v1/wallets/${walletId}/sign-transaction`, {
    transaction: { to: RECIPIENT, value: '1000', chainId: CHAIN_ID, nonce: 1, ...FEES },
    broadcast: true,
  });
  return { walletId, queuedId: queued.transactionId as string };
}

const record = async (walletId: string, transactionId: string) => (await rest('GET', `/v1/wallets/${walletId}/transactions/${transactionId}`)) as unknown as TransactionRecord;

const banner = (page: Page) => page.getByRole('region', { name: 'Stranded wallet' });

/** Opens (or reloads) the wallet page and waits for its stranded check to answer. */
async function openWallet(page: Page, walletId: string) {
  const checked = page.waitForResponse((response) => response.url().includes('/trpc/wallets.nonceGaps') && response.ok());
  await page.goto(`/wallets/${walletId}`);
  const answer = (await (await checked).json()) as { result: { data: unknown[] } };
  await expect(page.getByRole('heading', { name: 'Wallet', exact: true })).toBeVisible();
  return answer.result.data;
}

test('an owner sees the stranded wallet, sends the gap filler, follows it to its record, and the queued transaction lands', async ({ page }) => {
  await signIn(page, stack.owner);
  shared.apiKey = await newProjectWithKey(page, PROJECT);

  Object.assign(shared, await strandedWallet('stranded@example.com'));
  expect((await record(shared.walletId, shared.queuedId)).nonce).toBe(1);

  expect(await openWallet(page, shared.walletId)).toHaveLength(1);
  const stranded = banner(page);
  await expect(stranded.getByRole('heading', { name: `Stranded on chain ${CHAIN_ID}` })).toBeVisible();
  await expect(stranded.getByTestId('stranded-missing')).toHaveText('nonce 0');
  await expect(stranded.getByTestId('stranded-waiting')).toHaveText('1 transaction');
  await snap(page, 'wallet-stranded');

  await stranded.getByRole('button', { name: 'Send gap filler' }).click();
  await expect(stranded).toContainText('Sign and send 1 zero-value self-transfer at nonce 0?');
  await stranded.getByRole('button', { name: 'Confirm and send' }).click();
  const filler = page.getByRole('region', { name: 'Gap fillers sent' }).getByRole('link', { name: `Gap filler at nonce 0 on chain ${CHAIN_ID}` });
  await expect(filler).toBeVisible();
  // The filler holds nonce 0 now: the refreshed check finds nothing stranded.
  await expect(stranded).toHaveCount(0);
  shared.fillerId = (await filler.getAttribute('href'))!.split('/').at(-1)!;
  await expect(page.getByTestId(`tx-${shared.fillerId}`).getByTestId('gap-filler-badge')).toBeVisible();
  await expect(page.getByTestId(`tx-${shared.queuedId}`).getByTestId('gap-filler-badge')).toHaveCount(0);
  await snap(page, 'wallet-gap-filler-sent');

  await filler.click();
  await expect(page).toHaveURL(new RegExp(`/transactions/${shared.fillerId}$`));
  await expect(page.getByTestId('gap-filler-badge')).toBeVisible();
  await expect
    .poll(async () => [(await record(shared.walletId, shared.fillerId)).status, (await record(shared.walletId, shared.queuedId)).status], { timeout: 90_000, intervals: [1_000] })
    .toEqual(['confirmed', 'confirmed']);
  expect(await record(shared.walletId, shared.fillerId)).toMatchObject({ nonce: 0, value: '0', serviceInitiated: 'nonce_gap_filler' });
  await expect(page.getByTestId('tx-status')).toHaveText('confirmed');
  await snap(page, 'transaction-gap-filler');

  expect(await openWallet(page, shared.walletId)).toEqual([]);
  await expect(banner(page)).toHaveCount(0);
  await expect(page.getByTestId(`tx-${shared.queuedId}`)).toContainText('confirmed');
});

test('support: the banner of a stranded wallet without the button, the API refuses the fill, and the filler reads as one in GraphQL', async ({ page }) => {
  const other = await strandedWallet('stranded-support@example.com');
  await signIn(page, stack.support);
  expect(await openWallet(page, other.walletId)).toHaveLength(1);
  await expect(banner(page).getByTestId('stranded-missing')).toHaveText('nonce 0');
  await expect(banner(page)).toContainText('owners and developers can send it now from this page');
  await expect(page.getByRole('button', { name: 'Send gap filler' })).toHaveCount(0);
  await snap(page, 'support-wallet-stranded');

  const refused = await page.request.post('/trpc/wallets.fillNonceGaps', { headers: { 'x-csrf-protection': '1' }, data: { walletId: other.walletId } });
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as { error: { data: { apiError: { code: string } } } }).error.data.apiError.code).toBe('FORBIDDEN');
  expect(await openWallet(page, other.walletId)).toHaveLength(1);
  await expect(banner(page)).toBeVisible();

  await openWallet(page, shared.walletId);
  await expect(page.getByTestId(`tx-${shared.fillerId}`).getByTestId('gap-filler-badge')).toBeVisible();
  const answer = await page.request.post('/graphql', { data: { query: `{ transaction(id: "${shared.fillerId}") { serviceInitiated nonce status } }` } });
  const { data } = (await answer.json()) as { data: { transaction: { serviceInitiated: string | null; nonce: number; status: string } } };
  expect(data.transaction).toEqual({ serviceInitiated: 'nonce_gap_filler', nonce: 0, status: 'confirmed' });
});
