import { unwrap, waitForTransaction } from '@wallet/client';
import { apiClient, expect, newProjectWithKey, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * A batch of calls (POST /v1/wallets/{walletId}/calls, through `client.calls`) in the console: the
 * record page lists each call's target, selector and value, in order, and the wallet's records
 * list shows the batch as its number of calls.
 */
test.describe.configure({ mode: 'serial' });

const word = (hex: string) => hex.replace(/^0x/, '').toLowerCase().padStart(64, '0');
const calldata = (selector: string, account: string, amount: bigint) => `${selector}${word(account)}${word(amount.toString(16))}`;
const SPENDER = '0x000000000000000000000000000000000000dEaD';
const RECIPIENT = '0x1111111111111111111111111111111111111111';

test('a batch record shows each call: target, selector and value', async ({ page }) => {
  await signIn(page, stack.owner);
  const client = apiClient(await newProjectWithKey(page, 'batched calls e2e'));
  const wallet = await unwrap(client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier: 'calls-e2e@example.com', userIdentifierType: 'EMAIL' } }));
  await unwrap(client.POST('/v1/local/faucet', { body: { walletId: wallet.id, amount: '0.1', token: 'native' } }));
  await unwrap(client.POST('/v1/local/faucet', { body: { walletId: wallet.id, amount: '5', token: 'usdc' } }));
  const usdc = (await unwrap(client.GET('/v1/chains'))).chains.find((c) => c.type === 'EVM')!.usdc!.address;
  const sent = await client.calls.send(wallet.id, {
    chainId: 84532,
    calls: [
      { to: usdc, data: calldata('0x095ea7b3', SPENDER, 2_000_000n) },
      { to: usdc, data: calldata('0xa9059cbb', RECIPIENT, 1_000_000n) },
      { to: RECIPIENT, value: '1000' },
    ],
  });
  const record = await waitForTransaction(client, wallet.id, sent.transactionId, { timeoutMs: 60_000, intervalMs: 500 });
  expect(record.status).toBe('confirmed');

  await page.goto(`/transactions/${sent.transactionId}`);
  const calls = page.getByTestId('batch-calls');
  await expect(calls.getByTestId('batch-call-0')).toContainText('0x095ea7b3');
  await expect(calls.getByTestId('batch-call-0').getByTitle(usdc)).toBeVisible();
  await expect(calls.getByTestId('batch-call-1')).toContainText('0xa9059cbb');
  await expect(calls.getByTestId('batch-call-2')).toContainText('none');
  await expect(calls.getByTestId('batch-call-2')).toContainText('1000');
  await snap(page, 'batched-calls-record');

  await page.goto(`/wallets/${wallet.id}`);
  await expect(page.getByTestId(`tx-${sent.transactionId}`).getByTestId('tx-calls')).toHaveText('3 calls');
});
