import type { Page } from '@playwright/test';
import { waitForTransaction } from '@wallet/client';
import { apiClient, expect, nav, newProjectWithKey, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * A sponsored transfer seen in the console: an owner enables sponsorship by clicking; a wallet
 * created over REST holds faucet USDC and no ETH; its REST transfer answers 202 and the service's
 * sponsored worker confirms it. The owner opens the record from the wallet page and sees the stage,
 * the user operation hash and the gas the sponsor paid in ETH, as REST reports them, with the
 * monitor's evidence; the wallet still holds no ETH. A support account finds the same record by its
 * hash, sees the same, and has nothing to click; the API refuses its change.
 */
test.describe.configure({ mode: 'serial' });

const PROJECT = 'sponsored transfer e2e';
const CHAIN_ID = 84532;
const shared = { walletId: '', transactionId: '', hash: '', userOperationHash: '', gasCostEth: '', blockNumber: '', blockHash: '' };

/** `94135000000000` → `0.000094135 ETH`: wei as an exact decimal of ETH, written here independently of the console's own formatting. */
function weiInEth(wei: string): string {
  const padded = wei.padStart(19, '0');
  const whole = padded.slice(0, -18).replace(/^0+(?=\d)/, '');
  const fraction = padded.slice(-18).replace(/0+$/, '');
  return `${whole}${fraction ? `.${fraction}` : ''} ETH`;
}

const sponsored = (page: Page) => page.getByRole('region', { name: 'Sponsored execution' });

/** What both roles see on the record page: the stage, the hash and the cost as REST reports them, and the evidence. */
async function expectSponsoredRecord(page: Page) {
  await expect(page.getByTestId('tx-status')).toHaveText('confirmed');
  const section = sponsored(page);
  await expect(section.getByTestId('tx-execution-mode')).toHaveText('sponsored');
  await expect(section.getByTestId('tx-stage')).toHaveText('included');
  await expect(section.getByTestId('tx-stage-meaning')).toHaveText("The operation's UserOperationEvent is on chain");
  await expect(section.getByTestId('tx-user-operation-hash')).toHaveText(shared.userOperationHash);
  await expect(section.getByTestId('tx-actual-gas-cost')).toHaveText(shared.gasCostEth);
  await expect(section.getByTestId('tx-bundle-hash')).toHaveText(shared.hash);
  await expect(section.getByTestId('tx-winning-hash')).toHaveText(shared.hash);
  await expect(section.getByTestId('tx-evidence-block')).toHaveText(shared.blockNumber);
  await expect(section.getByTestId('tx-evidence-block-hash')).toHaveText(shared.blockHash);
  await expect(section.getByTestId('tx-review')).toHaveCount(0);
}

test('an owner enables sponsorship by clicking; a USDC transfer from a wallet without ETH is confirmed and its record shows the operation', async ({ page }) => {
  await signIn(page, stack.owner);
  const apiKey = await newProjectWithKey(page, PROJECT);
  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await nav(page, 'Sponsorship');
  await expect(page.getByRole('region', { name: 'Sponsorship status' }).getByTestId('sponsorship-state')).toHaveText('disabled');
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('switch', { name: 'Sponsorship enabled' }).click();
  await expect(page.getByRole('region', { name: 'Sponsorship status' }).getByTestId('sponsorship-state')).toHaveText('enabled');

  const client = apiClient(apiKey);
  const chains = await client.GET('/v1/chains');
  const usdc = chains.data!.chains.find((c) => c.chainId === String(CHAIN_ID))!.usdc!.address;
  const wallet = await client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier: 'sponsored-e2e@example.com', userIdentifierType: 'EMAIL' } });
  expect(wallet.response.status).toBe(201);
  shared.walletId = wallet.data!.id;
  const funded = await client.POST('/v1/local/faucet', { body: { walletId: shared.walletId, amount: '10', token: 'usdc' } });
  expect(funded.response.status).toBe(200);

  const transfer = await client.POST('/v1/wallets/{walletId}/transfer', {
    params: { path: { walletId: shared.walletId } },
    body: { to: '0x000000000000000000000000000000000000dEaD', value: '3000000', chainId: CHAIN_ID, tokenAddress: usdc },
  });
  expect(transfer.response.status, JSON.stringify(transfer.error ?? transfer.data)).toBe(202);
  expect(transfer.data).toMatchObject({ executionMode: 'sponsored', stage: 'accepted', status: 'pending' });
  shared.transactionId = transfer.data!.transactionId;

  const done = await waitForTransaction(client, shared.walletId, shared.transactionId, { timeoutMs: 25_000, intervalMs: 250 });
  expect(done).toMatchObject({ status: 'confirmed', stage: 'included', executionMode: 'sponsored' });
  expect(done.userOperationHash).toMatch(/^0x[0-9a-f]{64}$/);
  expect(done.actualGasCost).toMatch(/^[1-9]\d*$/);
  Object.assign(shared, {
    hash: done.hash!,
    userOperationHash: done.userOperationHash!,
    gasCostEth: weiInEth(done.actualGasCost!),
    blockNumber: done.blockNumber!,
    blockHash: done.blockHash!,
  });

  // The wallet page: 7 USDC left and still no ETH (the sponsor paid the gas); its list marks the record sponsored.
  await page.goto(`/wallets/${shared.walletId}`);
  const balances = page.getByRole('region', { name: 'Balances' });
  await expect(balances.getByTestId(`balance-${CHAIN_ID}-native`).getByTitle(/base units$/)).toHaveText('0 ETH');
  await expect(balances.getByTestId(`balance-${CHAIN_ID}-usdc`).getByTitle(/base units$/)).toHaveText('7 USDC');
  const row = page.getByTestId(`tx-${shared.transactionId}`);
  await expect(row.getByTestId('sponsored-badge')).toBeVisible();
  await row.getByRole('link').first().click();
  await expect(page).toHaveURL(new RegExp(`/transactions/${shared.transactionId}$`));
  await expectSponsoredRecord(page);
  await snap(page, 'sponsored-record-owner');
});

test('support finds the record by its hash and sees the same, read only; the API refuses its change', async ({ page }) => {
  await signIn(page, stack.support);
  await nav(page, 'Transactions');
  await page.getByRole('textbox', { name: 'Transaction hash' }).fill(shared.hash);
  await page.getByRole('button', { name: 'Find' }).click();
  await expect(page).toHaveURL(new RegExp(`/transactions/${shared.transactionId}$`));
  await expectSponsoredRecord(page);
  // No button but the copy buttons beside long values (they only read).
  await expect(page.getByRole('main').getByRole('button', { name: /^(?!Copy )/ })).toHaveCount(0);
  await expect(page.getByRole('main').getByRole('textbox')).toHaveCount(0);
  await snap(page, 'sponsored-record-support');

  // The one change the record page offers owners (resending a webhook event of the record) is refused to support by the API.
  const trpcGet = async <T>(procedure: string, input: unknown) =>
    ((await (await page.request.get(`/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`)).json()) as { result: { data: T } }).result.data;
  const record = await trpcGet<{ projectId: string; webhookDeliveries: { eventId: string }[] }>('transactions.get', { transactionId: shared.transactionId });
  const [key] = await trpcGet<{ apiKeyId: string }[]>('apiKeys.list', { projectId: record.projectId });
  expect(record.webhookDeliveries.length).toBeGreaterThan(0);
  const refused = await page.request.post('/trpc/webhooks.resend', {
    headers: { 'x-csrf-protection': '1' },
    data: { apiKeyId: key!.apiKeyId, eventId: record.webhookDeliveries[0]!.eventId },
  });
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as { error: { data: { apiError: unknown } } }).error.data.apiError).toEqual({
    code: 'FORBIDDEN',
    message: 'Support staff have read-only access',
  });
});
