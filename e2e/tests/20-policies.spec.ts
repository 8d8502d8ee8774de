import type { Page } from '@playwright/test';
import { callApi, expect, nav, rememberSecret, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * Policy authoring in the console: an owner fills the draft from a template, breaks it and sees
 * the schema problem at its JSON path, fixes it, activates version 1, dry-runs a transfer over the
 * cap in the panel and sees the denying rule, then sends the same transfer over REST with the
 * project's key (403 POLICY_DENIED naming the same rule); edits it into version 2 and compares the
 * two versions; a support account sees the same list with no write control at all, and dry-runs.
 */
test.describe.configure({ mode: 'serial' });

const PROJECT = 'policies e2e';
const CAP = '1000000000000000000';
const RAISED_CAP = '2000000000000000000';
/** Over CAP, under RAISED_CAP (wei). */
const OVER_CAP = '1500000000000000000';
const DEAD = '0x000000000000000000000000000000000000dEaD';
/** The project's API key (shown once in the console) and an EVM wallet of it, funded on the devnet. */
const shared = { apiKey: '', walletId: '' };

const rest = (method: string, path: string, body?: unknown) => callApi(shared.apiKey, method, path, body);

/** Fills the dry-run panel (first key of the project and environment) and runs it. */
async function dryRun(page: Page, route: string, body: unknown) {
  const form = page.getByRole('form', { name: 'Dry run' });
  await form.getByLabel('Wallet id', { exact: true }).fill(shared.walletId);
  await form.getByLabel('Route', { exact: true }).selectOption(route);
  await form.getByLabel('Request body (JSON, as the route takes it)').fill(JSON.stringify(body, null, 2));
  await form.getByRole('button', { name: 'Dry run', exact: true }).click();
  return page.getByTestId('dry-run-result');
}

async function openPolicies(page: Page) {
  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await nav(page, 'Policies');
  await expect(page.getByRole('heading', { name: 'Policies', exact: true })).toBeVisible();
}

const row = (page: Page) => page.locator('[data-testid="policy-row"][data-policy-id="per-transaction-cap"]');

test('an owner fills a draft from a template, sees a schema error at its path, fixes it and activates version 1', async ({ page }) => {
  await signIn(page, stack.owner);
  await nav(page, 'Projects & API keys');
  await page.getByLabel('New project name').fill(PROJECT);
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByText('No API keys in this project')).toBeVisible();
  // A key of the project (development, like the console's default environment) for the dry run and REST.
  const keyForm = page.getByRole('form', { name: 'New API key' });
  await keyForm.getByLabel('Plan').selectOption('growth');
  await keyForm.getByRole('button', { name: 'Create API key' }).click();
  const secret = page.getByTestId('secret-once');
  await expect(secret).toHaveText(/^sk_/);
  shared.apiKey = (await secret.textContent())!.trim();
  rememberSecret(shared.apiKey);
  await page.getByRole('button', { name: 'Done' }).click();
  await openPolicies(page);
  await expect(page.getByText('No active policy')).toBeVisible();
  await expect(page.getByText('The draft lives only in this browser until you activate it')).toBeVisible();
  const schemaDownload = page.waitForEvent('download');
  await page.getByRole('button', { name: 'JSON Schema' }).click();
  expect((await schemaDownload).suggestedFilename()).toBe('permissions.policy.v1.schema.json');

  await page.getByRole('combobox', { name: 'Template' }).selectOption({ label: 'Per-transaction cap (native)' });
  const form = page.getByRole('form', { name: 'Template: Per-transaction cap (native)' });
  await form.getByLabel('Wallet type').selectOption('EVM');
  await form.getByLabel('Networks (optional)').fill('84532');
  await form.getByLabel('Cap per request (base units)').fill(CAP);
  await form.getByRole('button', { name: 'Fill editor' }).click();

  const editor = page.getByLabel('Policy JSON');
  await expect(editor).toHaveValue(/"id": "per-transaction-cap"/);
  const validation = page.getByTestId('policy-validation');
  await expect(validation).toContainText('Valid.');

  // Break it: the cap as a JSON number instead of a decimal string.
  const good = await editor.inputValue();
  const broken = good.replace(`"value": "${CAP}"`, `"value": ${CAP}`);
  expect(broken).not.toBe(good);
  await editor.fill(broken);
  const problem = page.getByTestId('policy-problem');
  await expect(problem).toHaveCount(1);
  await expect(problem).toHaveAttribute('data-path', 'rules.0.condition.value');
  await expect(problem).toContainText('rules.0.condition.value');
  await expect(page.getByRole('button', { name: 'Activate', exact: true })).toBeDisabled();
  // The problem selects its place in the text.
  await problem.click();
  const selected = await editor.evaluate((el: HTMLTextAreaElement) => el.value.slice(el.selectionStart, el.selectionEnd));
  expect(selected).toBe(CAP);
  await snap(page, 'policies-draft-problem');

  await editor.fill(good);
  await expect(validation).toContainText('Valid.');
  await expect(problem).toHaveCount(0);
  await page.getByRole('button', { name: 'Activate', exact: true }).click();
  await expect(page.getByText('Activated per-transaction-cap version 1.')).toBeVisible();
  await expect(row(page).getByTestId('policy-version')).toHaveText('v1');
  await expect(editor).toHaveValue('');
});

test('the owner dry-runs a transfer over the cap in the panel and sees the denying rule; the same transfer over REST is 403 naming it', async ({ page }) => {
  const wallet = await rest('POST', '/v1/wallets', { type: 'EVM', userIdentifier: 'policies-e2e@example.com', userIdentifierType: 'EMAIL' });
  expect(wallet.status, JSON.stringify(wallet.body)).toBeLessThan(300);
  shared.walletId = wallet.body.id as string;
  // Funded, so the REST transfer gets past gas and balance to the policy decision.
  const funded = await rest('POST', '/v1/local/faucet', { walletId: shared.walletId, amount: '2', token: 'native' });
  expect(funded.status, JSON.stringify(funded.body)).toBeLessThan(300);

  await signIn(page, stack.owner);
  await openPolicies(page);
  const transfer = { to: DEAD, value: OVER_CAP, chainId: 84532 };
  // The route's example body is there to start from.
  await page.getByRole('form', { name: 'Dry run' }).getByLabel('Route', { exact: true }).selectOption('transfer');
  await expect(page.getByLabel('Request body (JSON, as the route takes it)')).toHaveValue(/"chainId": 84532/);
  const result = await dryRun(page, 'transfer', transfer);
  await expect(result).toHaveAttribute('data-decision', 'deny');
  await expect(page.getByTestId('dry-run-decision')).toHaveText('deny');
  const denial = page.getByTestId('dry-run-denied-by');
  await expect(denial).toHaveCount(1);
  const ruleId = (await denial.getAttribute('data-rule-id'))!;
  expect(ruleId).not.toBe('');
  await expect(denial).toHaveAttribute('data-policy-id', 'per-transaction-cap');
  const rule = page.locator(`[data-testid="dry-run-policy"][data-policy-id="per-transaction-cap"] [data-testid="dry-run-rule"][data-rule-id="${ruleId}"]`);
  await expect(rule).toHaveAttribute('data-outcome', 'matched');
  await expect(rule).toContainText(OVER_CAP);
  await snap(page, 'policies-dry-run-denied');

  // The same transfer for real, with the same project's key: denied by the same rule, nothing sent.
  const real = await rest('POST', `/v1/wallets/${shared.walletId}/transfer`, transfer);
  expect(real.status, JSON.stringify(real.body)).toBe(403);
  expect(real.body).toMatchObject({ code: 'POLICY_DENIED', deniedBy: [{ policyId: 'per-transaction-cap', policyVersion: '1', ruleId }] });
  expect(real.body.deniedBy).toHaveLength(1);

  // Under the cap, the panel allows it.
  await expect(await dryRun(page, 'transfer', { ...transfer, value: '1000' })).toHaveAttribute('data-decision', 'allow');
  await expect(page.getByTestId('dry-run-denied-by')).toHaveCount(0);
});

test('the owner edits the policy into version 2 and compares the versions side by side', async ({ page }) => {
  await signIn(page, stack.owner);
  await openPolicies(page);
  await row(page).getByRole('button', { name: 'Edit' }).click();
  const editor = page.getByLabel('Policy JSON');
  await expect(editor).toHaveValue(/"version": "1"/);
  await editor.fill((await editor.inputValue()).replace(`"value": "${CAP}"`, `"value": "${RAISED_CAP}"`));
  await expect(page.getByTestId('policy-validation')).toContainText('Activating makes version 2 of per-transaction-cap');
  await page.getByRole('button', { name: 'Activate', exact: true }).click();
  await expect(page.getByText('Activated per-transaction-cap version 2.')).toBeVisible();
  await expect(row(page).getByTestId('policy-version')).toHaveText('v2');

  await row(page).getByRole('button', { name: 'Versions' }).click();
  await expect(page.getByTestId('policy-version-item')).toHaveCount(2);
  await expect(page.getByRole('combobox', { name: 'Left version' })).toHaveValue('1');
  await expect(page.getByRole('combobox', { name: 'Right version' })).toHaveValue('2');
  await expect(page.getByTestId('diff-removed').filter({ hasText: CAP })).toHaveCount(1);
  await expect(page.getByTestId('diff-added').filter({ hasText: RAISED_CAP })).toHaveCount(1);
  await expect(page.getByTestId('diff-added').filter({ hasText: '"version": "2"' })).toHaveCount(1);
  await snap(page, 'policies-versions-diff');
});

test('support sees the policies and their versions but no Activate, Edit or Deactivate control', async ({ page }) => {
  await signIn(page, stack.support);
  await openPolicies(page);
  await expect(row(page).getByTestId('policy-version')).toHaveText('v2');
  await row(page).getByRole('button', { name: 'Versions' }).click();
  await expect(page.getByTestId('policy-version-item')).toHaveCount(2);
  for (const name of ['Activate', 'Deactivate', 'Edit', 'Fill editor', 'Discard draft']) await expect(page.getByRole('button', { name, exact: true })).toHaveCount(0);
  await expect(page.getByLabel('Policy JSON')).toHaveCount(0);
  // The dry run writes nothing, so support may run it: under version 2's raised cap it is allowed.
  await expect(await dryRun(page, 'transfer', { to: DEAD, value: OVER_CAP, chainId: 84532 })).toHaveAttribute('data-decision', 'allow');
  await expect(page.locator('[data-testid="dry-run-policy"][data-policy-id="per-transaction-cap"]')).toContainText('version 2');
  await snap(page, 'support-policies');
});

test('the owner deactivates the policy after confirming', async ({ page }) => {
  await signIn(page, stack.owner);
  await openPolicies(page);
  page.once('dialog', (dialog) => void dialog.accept());
  await row(page).getByRole('button', { name: 'Deactivate' }).click();
  await expect(page.getByText('Deactivated per-transaction-cap version 2.')).toBeVisible();
  await expect(row(page)).toHaveCount(0);
  await expect(page.getByText('No active policy')).toBeVisible();
});
