import type { Page } from '@playwright/test';
import { waitForTransaction } from '@wallet/client';
import { apiClient, expect, nav, newProjectWithKey, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * Managed automatic retry in the console: an owner turns the project's default off and sets a fee
 * ceiling by clicking; REST transfers then carry it (off, or the ceiling when a transfer opts in).
 * With the default back on, a transfer left under a base fee raised by hand on the devnet is
 * replaced by the service's monitor; its record page lists both attempts with their fees and
 * fates, as REST reports them. Support sees the same, without controls, and the API refuses its change.
 */
test.describe.configure({ mode: 'serial' });

const PROJECT = 'managed retry e2e';
const CHAIN_ID = 84532;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const CEILING = '500000000000';
const shared = { apiKey: '', walletId: '', transactionId: '', attempts: [] as { hash: string; maxFeePerGas: string; outcome: string }[], reason: '' };

/** `12500000000` → `12.5 gwei`: written here independently of the console's own formatting. */
function weiInGwei(wei: string): string {
  const padded = wei.padStart(10, '0');
  const whole = padded.slice(0, -9).replace(/^0+(?=\d)/, '');
  const fraction = padded.slice(-9).replace(/0+$/, '');
  return `${whole}${fraction ? `.${fraction}` : ''} gwei`;
}

async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

const settings = (page: Page) => page.getByRole('region', { name: 'Managed retry default' });
const retry = (page: Page) => page.getByRole('region', { name: 'Automatic retry' });

async function transfer(extra: Record<string, unknown> = {}) {
  const client = apiClient(shared.apiKey);
  const sent = await client.POST('/v1/wallets/{walletId}/transfer', {
    params: { path: { walletId: shared.walletId } },
    body: { to: RECIPIENT, value: '1000', chainId: CHAIN_ID, ...extra },
  });
  expect(sent.response.status, JSON.stringify(sent.error ?? sent.data)).toBe(200);
  const record = await client.GET('/v1/wallets/{walletId}/transactions/{transactionId}', { params: { path: { walletId: shared.walletId, transactionId: sent.data!.transactionId } } });
  return record.data!;
}

/** What both roles see on the replaced record's page: both attempts with their fees and fates, as REST reports them. */
async function expectAttempts(page: Page) {
  await expect(page.getByTestId('tx-status')).toHaveText('confirmed');
  const section = retry(page);
  await expect(section.getByTestId('tx-auto-retry-enabled')).toHaveText('on');
  await expect(section.getByTestId('tx-auto-retry-ceiling')).toContainText(`${weiInGwei(CEILING)} ${CEILING} wei`);
  await expect(section.getByTestId('tx-auto-retry-reason')).toHaveText(shared.reason);
  const rows = section.getByTestId('tx-attempt');
  await expect(rows).toHaveCount(2);
  for (const [i, attempt] of shared.attempts.entries()) {
    await expect(rows.nth(i)).toContainText(attempt.hash);
    await expect(rows.nth(i).getByTestId('tx-attempt-max-fee')).toHaveText(`${weiInGwei(attempt.maxFeePerGas)} ${attempt.maxFeePerGas} wei`);
    await expect(rows.nth(i).getByTestId('tx-attempt-outcome')).toHaveText(attempt.outcome);
  }
}

test('an owner turns the project default off and sets a ceiling by clicking; REST transfers carry it', async ({ page }) => {
  await signIn(page, stack.owner);
  shared.apiKey = await newProjectWithKey(page, PROJECT);
  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await nav(page, 'Managed retry');
  await expect(settings(page).getByTestId('auto-retry-state')).toHaveText('on');
  await expect(settings(page).getByTestId('auto-retry-last-change')).toHaveText('never changed (on by default)');
  await page.getByRole('checkbox', { name: 'Retry transfers automatically' }).uncheck();
  await page.getByLabel('Default fee ceiling (wei per gas)').fill(CEILING);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(settings(page).getByTestId('auto-retry-state')).toHaveText('off');
  await expect(settings(page).getByTestId('auto-retry-ceiling')).toHaveText(`${weiInGwei(CEILING)} ${CEILING} wei`);
  await expect(settings(page).getByTestId('auto-retry-last-change')).toContainText(stack.owner.email);

  const client = apiClient(shared.apiKey);
  const wallet = await client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier: 'retry-e2e@example.com', userIdentifierType: 'EMAIL' } });
  expect(wallet.response.status).toBe(201);
  shared.walletId = wallet.data!.id;
  expect((await client.POST('/v1/local/faucet', { body: { walletId: shared.walletId, amount: '1', token: 'native' } })).response.status).toBe(200);

  const off = await transfer();
  expect(off.autoRetry).toMatchObject({ enabled: false, maxFeePerGas: null });
  const optedIn = await transfer({ autoRetry: { enabled: true } });
  expect(optedIn.autoRetry).toMatchObject({ enabled: true, maxFeePerGas: CEILING });

  await page.goto(`/transactions/${off.transactionId}`);
  await expect(retry(page).getByTestId('tx-auto-retry-enabled')).toHaveText('off');
  await expect(retry(page).getByTestId('tx-attempt')).toHaveCount(1);
  await page.goto(`/transactions/${optedIn.transactionId}`);
  await expect(retry(page).getByTestId('tx-auto-retry-ceiling')).toHaveText(`${weiInGwei(CEILING)} ${CEILING} wei`);
  await waitForTransaction(client, shared.walletId, optedIn.transactionId, { timeoutMs: 25_000, intervalMs: 250 });
  await waitForTransaction(client, shared.walletId, off.transactionId, { timeoutMs: 25_000, intervalMs: 250 });

  // Back on (the ceiling stays) for the next test's transfer.
  await nav(page, 'Managed retry');
  await page.getByRole('checkbox', { name: 'Retry transfers automatically' }).check();
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(settings(page).getByTestId('auto-retry-state')).toHaveText('on');
  await snap(page, 'auto-retry-settings-owner');
});

test('a transfer under a raised base fee is replaced; its record page lists both attempts with fees and outcomes', async ({ page }) => {
  const client = apiClient(shared.apiKey);
  const devnets = await client.GET('/v1/local/devnets');
  const rpcUrl = devnets.data!.evm.find((e) => Number(e.chainId) === CHAIN_ID)!.rpcUrl;
  // The chain stands still while the test raises the base fee and mines by hand.
  await rpc(rpcUrl, 'evm_setIntervalMining', [0]);
  let transactionId = '';
  try {
    const sent = await transfer();
    transactionId = sent.transactionId;
    expect(sent.autoRetry).toMatchObject({ enabled: true, maxFeePerGas: CEILING });
    const firstFee = BigInt(sent.autoRetry!.attempts[0]!.maxFeePerGas!);
    // Three times what it offers, block after block, until the monitor has replaced it.
    await expect
      .poll(
        async () => {
          await rpc(rpcUrl, 'anvil_setNextBlockBaseFeePerGas', [`0x${(firstFee * 3n).toString(16)}`]);
          await rpc(rpcUrl, 'evm_mine');
          const now = await client.GET('/v1/wallets/{walletId}/transactions/{transactionId}', { params: { path: { walletId: shared.walletId, transactionId } } });
          return now.data!.autoRetry!.attempts.length;
        },
        { timeout: 60_000, intervals: [500] },
      )
      .toBe(2);
  } finally {
    await rpc(rpcUrl, 'evm_setIntervalMining', [1]);
  }
  const done = await waitForTransaction(client, shared.walletId, transactionId, { timeoutMs: 30_000, intervalMs: 250 });
  const attempts = done.autoRetry!.attempts;
  expect(done.status).toBe('confirmed');
  expect(done.monitoring?.winningHash).toBe(attempts[1]!.hash);
  expect(attempts.map((a) => a.outcome)).toEqual(['lost', 'included']);
  expect(BigInt(attempts[1]!.maxFeePerGas!)).toBeGreaterThan(BigInt(attempts[0]!.maxFeePerGas!));
  shared.transactionId = transactionId;
  shared.attempts = attempts.map((a) => ({ hash: a.hash!, maxFeePerGas: a.maxFeePerGas!, outcome: a.outcome }));
  shared.reason = done.autoRetry!.reason!;
  expect(shared.reason).toMatch(/^fee replacement 2: /);

  await signIn(page, stack.owner);
  await page.goto(`/transactions/${transactionId}`);
  await expectAttempts(page);
  await snap(page, 'auto-retry-record-owner');
});

test('support sees the attempts and the setting without controls; the API refuses its change', async ({ page }) => {
  await signIn(page, stack.support);
  await page.goto(`/transactions/${shared.transactionId}`);
  await expectAttempts(page);
  // No button but the copy buttons beside long values (they only read).
  await expect(page.getByRole('main').getByRole('button', { name: /^(?!Copy )/ })).toHaveCount(0);

  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await nav(page, 'Managed retry');
  await expect(settings(page).getByTestId('auto-retry-state')).toHaveText('on');
  await expect(settings(page).getByTestId('auto-retry-read-only')).toBeVisible();
  await expect(page.getByRole('main').getByRole('button')).toHaveCount(0);
  await expect(page.getByRole('main').getByRole('checkbox')).toHaveCount(0);
  await snap(page, 'auto-retry-settings-support');

  const projectId = (await page.getByRole('combobox', { name: 'Project', exact: true }).inputValue()) || '';
  const refused = await page.request.post('/trpc/autoRetry.change', {
    headers: { 'x-csrf-protection': '1' },
    data: { projectId, environment: 'development', enabled: false, maxFeePerGas: null },
  });
  expect(refused.status()).toBe(403);
  expect(((await refused.json()) as { error: { data: { apiError: unknown } } }).error.data.apiError).toEqual({
    code: 'FORBIDDEN',
    message: 'Support staff have read-only access',
  });
});
