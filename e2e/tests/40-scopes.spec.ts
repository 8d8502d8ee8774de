import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Page } from '@playwright/test';
import { repoRoot } from '../support/stack.ts';
import { callApi, callApiOk, expect, nav, newProjectWithKey, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * Authorization scopes and conditional approvals in the console: an owner enables the permissions
 * v2 extension, binds a wallet to a scope on the wallet page, assigns the role `finance` to a user
 * created with the users CLI and sees the member and the user's history; a save with a revision
 * someone else replaced shows the conflict and the current revision. Then a transfer over REST
 * gets POLICY_REVIEW_REQUIRED (evm-approvals, two finance approvals configured for the scope), the
 * case appears in Reviews & cases, two users approve it with the users CLI, the resent transfer
 * confirms, and the case shows its stage with who approved when and every status time. A support
 * account sees all of it, has no edit or cancel control, and the API refuses its writes.
 */
test.describe.configure({ mode: 'serial' });

const PROJECT = 'scopes e2e';
const SCOPE = 'acme:treasury';
const shared = { apiKey: '', projectId: '', walletId: '', userId: '', secondUserId: '', caseId: '', pendingCaseId: '', transactionId: '' };
const LARGE = '2000000000000000'; // 0.002 ETH: above evm-approvals' 0.001 ETH threshold
const DEAD = '0x000000000000000000000000000000000000dEaD';

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => callApi(shared.apiKey, method, path, body, headers);

const rest = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => callApiOk(shared.apiKey, method, path, body, headers);

/** The users CLI against the running stack (it goes through the service holding the embedded database): its one JSON line. */
async function usersCli(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/users.ts', ...args], {
    cwd: repoRoot,
    env: { ...process.env, APP_ENV: 'local', DATA_DIR: stack.dataDir, DATABASE_URL: '', REDIS_URL: '' },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

const signUpUser = async (identifier: string) =>
  (await usersCli('signup', '--project-id', shared.projectId, '--identifier', identifier, '--type', 'EMAIL')).userId as string;

async function openCase(page: Page, caseId: string) {
  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await nav(page, 'Reviews & cases');
  await expect(page.getByRole('heading', { name: 'Reviews & cases', exact: true })).toBeVisible();
  await page.getByRole('button', { name: `Open case ${caseId}` }).click();
  return page.getByRole('region', { name: 'Case detail' });
}

async function openScopes(page: Page) {
  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await nav(page, 'Authorization scopes');
  await expect(page.getByRole('heading', { name: 'Authorization scopes', exact: true })).toBeVisible();
}

const extensionState = (page: Page) => page.getByRole('region', { name: 'Permissions v2 extension' }).getByTestId('extension-state');

test('an owner enables the extension, binds a wallet to a scope, assigns finance to a user and sees the member and histories', async ({ page }) => {
  await signIn(page, stack.owner);
  shared.apiKey = await newProjectWithKey(page, PROJECT);
  const projects = (await (await page.request.get('/trpc/projects.list')).json()) as { result: { data: { projectId: string; name: string }[] } };
  shared.projectId = projects.result.data.find((p) => p.name === PROJECT)!.projectId;
  shared.walletId = (await rest('POST', '/v1/wallets', { type: 'EVM', userIdentifier: 'scopes@example.com', userIdentifierType: 'EMAIL' })).id as string;
  // The users CLI takes seconds to start: it runs while the owner works in the console.
  const signedUp = signUpUser('finance@example.com');

  await openScopes(page);
  await expect(extensionState(page)).toHaveText('disabled');
  page.once('dialog', (dialog) => void dialog.accept());
  await page.getByRole('button', { name: 'Enable extension' }).click();
  await expect(extensionState(page)).toHaveText('enabled');
  await expect(page.getByRole('region', { name: 'Permissions v2 extension' })).toContainText('by staff');

  // The wallet page: bind to the scope (revision 0 → 1).
  await page.goto(`/wallets/${shared.walletId}`);
  const binding = page.getByRole('region', { name: 'Authorization scope' });
  await expect(binding.getByTestId('binding-scope')).toHaveText('not bound');
  await binding.getByLabel('Scope to bind').fill(SCOPE);
  await binding.getByRole('button', { name: 'Bind', exact: true }).click();
  await expect(binding.getByTestId('binding-scope')).toHaveText(SCOPE);
  await expect(binding.getByTestId('binding-revision')).toHaveText('1');
  await expect(binding.getByTestId('binding-history-item')).toHaveCount(1);
  await expect(binding.getByTestId('binding-history-item')).toContainText('by staff');
  expect(await rest('GET', `/v1/permissions-v2/wallets/${shared.walletId}/authorization-scope`)).toMatchObject({ authorizationScopeId: SCOPE, revision: 1 });

  // The scope (in use now through the binding): assign finance to the user.
  shared.userId = await signedUp;
  await openScopes(page);
  await page.getByLabel('Scopes in use').selectOption(SCOPE);
  const members = page.getByRole('region', { name: 'Scope members' });
  await expect(members.getByText('No members in this scope')).toBeVisible();
  await members.getByLabel('User id').fill(shared.userId);
  await members.getByRole('button', { name: 'Open user' }).click();
  const user = page.getByRole('region', { name: 'User assignments' });
  await expect(user.getByTestId('assignments-revision')).toHaveText('0');
  await user.getByLabel('Role').fill('finance');
  await user.getByRole('button', { name: 'Add role' }).click();
  await user.getByRole('button', { name: 'Save assignments' }).click();
  await expect(user.getByTestId('assignments-revision')).toHaveText('1');
  await expect(members.getByTestId(`member-${shared.userId}`)).toContainText('role finance');
  await expect(user.getByTestId('assignment-history-item')).toHaveCount(1);
  await expect(user.getByTestId('assignment-history-item')).toContainText('by staff');

  // Someone writes revision 2 over REST while the console still shows 1: the save is refused, the conflict shown, revision 2 loaded.
  const assignmentsPath = `/v1/permissions-v2/authorization-scopes/${encodeURIComponent(SCOPE)}/users/${shared.userId}/assignments`;
  await rest('PUT', assignmentsPath, { expectedRevision: 1, assignments: [{ role: 'finance' }, { attribute: 'region', value: 'eu' }] });
  await user.getByLabel('Role').fill('auditor');
  await user.getByRole('button', { name: 'Add role' }).click();
  await user.getByRole('button', { name: 'Save assignments' }).click();
  await expect(user.getByTestId('assignments-conflict')).toBeVisible();
  await expect(user.getByTestId('assignments-revision')).toHaveText('2');
  await expect(user.getByTestId('assignment-history-item')).toHaveCount(2);
  expect(await rest('GET', assignmentsPath)).toMatchObject({ revision: 2, assignments: [{ role: 'finance' }, { attribute: 'region', value: 'eu' }] });
  await snap(page, 'scope-members');
});

test('a transfer over REST waits for two finance approvals: the case in the console, approvals with the users CLI, the resend confirms', async ({ page }) => {
  // A second finance member (assignments come before the case: an assignment write invalidates open cases).
  shared.secondUserId = await signUpUser('finance-2@example.com');
  const scopePath = `/v1/permissions-v2/authorization-scopes/${encodeURIComponent(SCOPE)}`;
  await rest('PUT', `${scopePath}/users/${shared.secondUserId}/assignments`, { expectedRevision: 0, assignments: [{ role: 'finance' }] });
  await signIn(page, stack.owner);
  const activated = await page.request.post('/trpc/policies.activate', {
    headers: { 'x-csrf-protection': '1' },
    data: { projectId: shared.projectId, environment: 'development', document: JSON.parse(readFileSync(path.resolve(repoRoot, '../shared/spec/policy-examples/evm-approvals.json'), 'utf8')) },
  });
  expect(activated.status(), await activated.text()).toBe(200);
  await rest('PUT', `${scopePath}/policies/evm-approvals/versions/1/requirements/finance-approval/configuration`, { expectedRevision: 0, values: { 'finance.requiredApprovals': 2 } });
  await rest('POST', '/v1/local/faucet', { walletId: shared.walletId, amount: '1', token: 'native' });

  const transfer = () => send('POST', `/v1/wallets/${shared.walletId}/transfer`, { to: DEAD, value: LARGE, chainId: 84532 }, { 'Idempotency-Key': 'e2e-approval-1' });
  const paused = await transfer();
  expect(paused.status, JSON.stringify(paused.body)).toBe(403);
  expect(paused.body).toMatchObject({ code: 'POLICY_REVIEW_REQUIRED', reviewId: expect.any(String) });
  shared.caseId = paused.body.reviewId as string;

  let detail = await openCase(page, shared.caseId);
  await expect(detail.getByTestId('case-detail')).toHaveAttribute('data-status', 'pending');
  await expect(detail.getByTestId('case-stage-finance')).toContainText('0 of 2 approvals');
  await expect(detail.getByRole('region', { name: 'Gated request' })).toContainText(LARGE);
  await snap(page, 'case-pending');

  for (const userId of [shared.userId, shared.secondUserId]) {
    expect(await usersCli('approve', '--case-id', shared.caseId, '--user-id', userId)).toMatchObject({ caseId: shared.caseId });
  }
  const sent = await transfer();
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  shared.transactionId = sent.body.transactionId as string;

  await page.reload();
  detail = await openCase(page, shared.caseId);
  await expect(detail.getByTestId('case-detail')).toHaveAttribute('data-status', 'consumed');
  const stage = detail.getByTestId('case-stage-finance');
  await expect(stage).toContainText('2 of 2 approvals');
  await expect(stage).toContainText(shared.userId);
  await expect(stage).toContainText(shared.secondUserId);
  const times = detail.getByRole('region', { name: 'Status times' });
  for (const label of ['Created', 'Completed', 'Consumed']) {
    await expect(times.getByText(label, { exact: true }).locator('xpath=following-sibling::dd[1]')).not.toHaveText('none');
  }
  await expect(times.getByText('Rejected', { exact: true }).locator('xpath=following-sibling::dd[1]')).toHaveText('none');
  await snap(page, 'case-consumed');

  // The record it gated: confirmed on the devnet (1 s blocks, the monitor checks every 5 s).
  await page.goto(`/transactions/${shared.transactionId}`);
  await expect(page.getByTestId('tx-status')).toHaveText('confirmed', { timeout: 60_000 });
  // ...links the case it consumed, which opens on the cases page.
  await expect(page.getByTestId('tx-approval-case')).toContainText(shared.caseId);
  await page.getByTestId('tx-approval-case').click();
  await expect(page.getByRole('heading', { name: 'Reviews & cases', exact: true })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Case detail' }).getByTestId('case-detail')).toHaveAttribute('data-status', 'consumed');

  // One more case that stays pending, for support to look at.
  const waiting = await send('POST', `/v1/wallets/${shared.walletId}/transfer`, { to: DEAD, value: LARGE, chainId: 84532 }, { 'Idempotency-Key': 'e2e-approval-2' });
  expect(waiting.body).toMatchObject({ code: 'POLICY_REVIEW_REQUIRED' });
  shared.pendingCaseId = waiting.body.reviewId as string;
});

test('support: the extension, member, histories and binding, no edit control, and the API refuses its writes', async ({ page }) => {
  await signIn(page, stack.support);
  await openScopes(page);
  await expect(extensionState(page)).toHaveText('enabled');
  await expect(page.getByRole('button', { name: /extension/ })).toHaveCount(0);
  await page.getByLabel('Scopes in use').selectOption(SCOPE);
  const member = page.getByTestId(`member-${shared.userId}`);
  await expect(member).toContainText('role finance');
  await member.getByRole('button', { name: 'History' }).click();
  const user = page.getByRole('region', { name: 'User assignments' });
  await expect(user.getByTestId('assignment-history-item')).toHaveCount(2);
  await expect(user.getByRole('button', { name: 'Save assignments' })).toHaveCount(0);
  await expect(user.getByLabel('Role')).toHaveCount(0);
  await snap(page, 'support-scope-members');

  const refused = await page.request.post('/trpc/scopes.replaceAssignments', {
    headers: { 'x-csrf-protection': '1' },
    data: { projectId: shared.projectId, environment: 'development', scopeId: SCOPE, userId: shared.userId, expectedRevision: 2, assignments: [] },
  });
  expect(refused.status()).toBe(403);

  await page.goto(`/wallets/${shared.walletId}`);
  const binding = page.getByRole('region', { name: 'Authorization scope' });
  await expect(binding.getByTestId('binding-scope')).toHaveText(SCOPE);
  await expect(binding.getByTestId('binding-history-item')).toHaveCount(1);
  await expect(binding.getByRole('button', { name: /Bind|Unbind/ })).toHaveCount(0);
  await expect(binding.getByLabel('Scope to bind')).toHaveCount(0);

  const answer = await page.request.post('/graphql', {
    data: { query: `{ wallet(id: "${shared.walletId}") { authorizationScope { authorizationScopeId revision updatedBy { type } } } authorizationScopeMembers(projectId: "${shared.projectId}", scopeId: "${SCOPE}") { members { userId assignments { role attribute value } } } }` },
  });
  const { data } = (await answer.json()) as { data: { wallet: { authorizationScope: unknown }; authorizationScopeMembers: { members: unknown[] } } };
  expect(data.wallet.authorizationScope).toEqual({ authorizationScopeId: SCOPE, revision: 1, updatedBy: { type: 'staff' } });
  expect(data.authorizationScopeMembers.members).toHaveLength(2);
  expect(data.authorizationScopeMembers.members).toEqual(
    expect.arrayContaining([
      { userId: shared.userId, assignments: [{ role: 'finance', attribute: null, value: null }, { role: null, attribute: 'region', value: 'eu' }] },
      { userId: shared.secondUserId, assignments: [{ role: 'finance', attribute: null, value: null }] },
    ]),
  );

  // The cases: the consumed one with its approvals, the pending one without a cancel control.
  const consumed = await openCase(page, shared.caseId);
  await expect(consumed.getByTestId('case-detail')).toHaveAttribute('data-status', 'consumed');
  await expect(consumed.getByTestId('case-stage-finance')).toContainText('2 of 2 approvals');
  await page.getByRole('button', { name: `Open case ${shared.pendingCaseId}` }).click();
  const pending = page.getByRole('region', { name: 'Case detail' });
  await expect(pending.getByTestId('case-detail')).toHaveAttribute('data-status', 'pending');
  await expect(pending.getByRole('button', { name: 'Cancel case' })).toHaveCount(0);
  await snap(page, 'support-case');
  const cancel = await page.request.post('/trpc/approvalCases.cancel', {
    headers: { 'x-csrf-protection': '1' },
    data: { projectId: shared.projectId, environment: 'development', caseId: shared.pendingCaseId },
  });
  expect(cancel.status()).toBe(403);
  const viaGraphql = await page.request.post('/graphql', {
    data: { query: `{ approvalCase(id: "${shared.caseId}") { status stages { id requiredApprovals approvals { userId at } completedAt } consumedAt } }` },
  });
  const found = ((await viaGraphql.json()) as { data: { approvalCase: { status: string; stages: { approvals: { userId: string }[] }[]; consumedAt: string | null } } }).data.approvalCase;
  expect(found.status).toBe('consumed');
  expect(found.stages[0]!.approvals.map((a) => a.userId).sort()).toEqual([shared.userId, shared.secondUserId].sort());
  expect(found.consumedAt).not.toBeNull();
});
