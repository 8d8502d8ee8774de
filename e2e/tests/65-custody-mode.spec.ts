import { unwrap } from '@wallet/client';
import { apiClient, cli, expect, newProjectWithKey, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * The overview shows how the project's new EVM and COSMOS wallets hold their keys, per environment,
 * as operators set it with `npm run custody -- mode`; the threshold mode carries its review label.
 * A wallet created afterwards has that mode.
 */
test.describe.configure({ mode: 'serial' });

const PROJECT = 'custody mode e2e';

test('the overview shows each environment’s custody mode as the operator CLI sets it', async ({ page }) => {
  await signIn(page, stack.owner);
  const apiKey = await newProjectWithKey(page, PROJECT);
  const projects = (await (await page.request.get('/trpc/projects.list')).json()) as { result: { data: { projectId: string; name: string }[] } };
  const projectId = projects.result.data.find((p) => p.name === PROJECT)!.projectId;

  await page.goto('/');
  const development = page.getByTestId('custody-mode-development');
  const production = page.getByTestId('custody-mode-production');
  await expect(development).toContainText('isolated');
  await expect(production).toContainText('isolated');
  await expect(page.getByText('not externally audited')).toHaveCount(0);

  const set = await cli('custody.mode', { projectId, environment: 'development', mode: 'threshold' });
  expect(set).toMatchObject({ secp256k1Mode: 'threshold' });
  await page.reload();
  await expect(development).toContainText('threshold');
  await expect(development).toContainText('implemented from the paper, not externally audited');
  await expect(production).toContainText('isolated');
  await snap(page, 'overview-custody-mode');

  // The console says what a new wallet of the development key gets.
  const wallet = await unwrap(apiClient(apiKey).POST('/v1/wallets', { body: { type: 'EVM', userIdentifier: 'custody-e2e@example.com', userIdentifierType: 'EMAIL' } }));
  expect(wallet.custodyMode).toBe('threshold');
});
