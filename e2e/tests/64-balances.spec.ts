import { unwrap } from '@wallet/client';
import { apiClient, expect, newProjectWithKey, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * The wallet page's balances come from the balances use case: an EVM wallet funded by the local
 * faucet shows its ETH and USDC, a Solana wallet its SOL and USDC, each as `client.balances.get`
 * (REST GET /v1/wallets/{walletId}/balances) reads them, with the block or slot read.
 */
test.describe.configure({ mode: 'serial' });

test("a wallet page shows the wallet's balances as the REST route reads them", async ({ page }) => {
  await signIn(page, stack.owner);
  const client = apiClient(await newProjectWithKey(page, 'balances e2e'));
  const evm = await unwrap(client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier: 'balances-e2e@example.com', userIdentifierType: 'EMAIL' } }));
  await unwrap(client.POST('/v1/local/faucet', { body: { walletId: evm.id, amount: '1.25', token: 'native' } }));
  await unwrap(client.POST('/v1/local/faucet', { body: { walletId: evm.id, amount: '3.5', token: 'usdc' } }));
  const evmBalances = await client.balances.get(evm.id, { chainId: '84532' });
  expect(evmBalances.balances.map((b) => `${b.balance} ${b.symbol}`)).toEqual(['1.25 ETH', '3.5 USDC']);

  await page.goto(`/wallets/${evm.id}`);
  const balances = page.getByRole('region', { name: 'Balances' });
  await expect(balances.getByTestId('balance-84532-native').getByTitle(/base units$/)).toHaveText('1.25 ETH');
  await expect(balances.getByTestId('balance-84532-native').getByTitle(/base units$/)).toHaveAttribute('title', `${evmBalances.balances[0]!.rawBalance} base units`);
  await expect(balances.getByTestId('balance-84532-usdc').getByTitle(/base units$/)).toHaveText('3.5 USDC');
  await expect(balances.getByTestId('balance-84532-usdc')).toContainText(/block \d+/);
  await snap(page, 'balances-evm-wallet');

  const sol = await unwrap(client.POST('/v1/wallets', { body: { type: 'SOLANA', userIdentifier: 'balances-e2e@example.com', userIdentifierType: 'EMAIL' } }));
  await unwrap(client.POST('/v1/local/faucet', { body: { walletId: sol.id, amount: '0.5', token: 'native' } }));
  const solBalances = await client.balances.get(sol.id, { network: 'SOLANA_DEVNET' });
  expect(solBalances.balances.map((b) => `${b.balance} ${b.symbol}`)).toEqual(['0.5 SOL', '0 USDC']);
  await page.goto(`/wallets/${sol.id}`);
  await expect(balances.getByTestId('balance-SOLANA_DEVNET-native').getByTitle(/base units$/)).toHaveText('0.5 SOL');
  await expect(balances.getByTestId('balance-SOLANA_DEVNET-native')).toContainText(/slot \d+/);
  await expect(balances.getByTestId('balance-SOLANA_DEVNET-usdc').getByTitle(/base units$/)).toHaveText('0 USDC');
});
