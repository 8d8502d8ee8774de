import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from '@playwright/test';
import { repoRoot } from '../support/stack.ts';
import { expect, nav, rememberSecret, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * Authorization scopes in the console: an owner enables the permissions v2 extension, binds a
 * wallet to a scope on the wallet page, assigns the role `finance` to a user created with the users
 * CLI and sees the member and the user's history; a save with a revision someone else replaced
 * shows the conflict and the current revision. A support account sees the same and has no edit
 * control, and the API refuses its writes.
 */
test.describe.configure({ mode: 'serial' });

const PROJECT = 'scopes e2e';
const SCOPE = 'acme:treasury';
const shared = { apiKey: '', projectId: '', walletId: '', userId: '' };

async function rest(method: string, path: string, body?: unknown) {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method,
    headers: { 'x-api-key': shared.apiKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await response.json()) as Record<string, unknown>;
  expect(response.status, `${method} ${path}: ${JSON.stringify(json)}`).toBeLessThan(300);
  return json;
}

/** The users CLI against the running stack (it goes through the service holding the embedded database). */
async function signUpUser(identifier: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'apps/api/src/cli/users.ts', 'signup', '--project-id', shared.projectId, '--identifier', identifier, '--type', 'EMAIL'],
    { cwd: repoRoot, env: { ...process.env, APP_ENV: 'local', DATA_DIR: stack.dataDir, DATABASE_URL: '', REDIS_URL: '' } },
  );
  return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { userId: string }).userId;
}

async function openScopes(page: Page) {
  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await nav(page, 'Authorization scopes');
  await expect(page.getByRole('heading', { name: 'Authorization scopes', exact: true })).toBeVisible();
}

const extensionState = (page: Page) => page.getByRole('region', { name: 'Permissions v2 extension' }).getByTestId('extension-state');

test('an owner enables the extension, binds a wallet to a scope, assigns finance to a user and sees the member and histories', async ({ page }) => {
  await signIn(page, stack.owner);
  await nav(page, 'Projects & API keys');
  await page.getByLabel('New project name').fill(PROJECT);
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByText('No API keys in this project')).toBeVisible();
  await page.getByRole('form', { name: 'New API key' }).getByRole('button', { name: 'Create API key' }).click();
  const secret = page.getByTestId('secret-once');
  await expect(secret).toHaveText(/^sk_/);
  shared.apiKey = (await secret.textContent())!.trim();
  rememberSecret(shared.apiKey);
  await page.getByRole('button', { name: 'Done' }).click();
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
  const path = `/v1/permissions-v2/authorization-scopes/${encodeURIComponent(SCOPE)}/users/${shared.userId}/assignments`;
  await rest('PUT', path, { expectedRevision: 1, assignments: [{ role: 'finance' }, { attribute: 'region', value: 'eu' }] });
  await user.getByLabel('Role').fill('auditor');
  await user.getByRole('button', { name: 'Add role' }).click();
  await user.getByRole('button', { name: 'Save assignments' }).click();
  await expect(user.getByTestId('assignments-conflict')).toBeVisible();
  await expect(user.getByTestId('assignments-revision')).toHaveText('2');
  await expect(user.getByTestId('assignment-history-item')).toHaveCount(2);
  expect(await rest('GET', path)).toMatchObject({ revision: 2, assignments: [{ role: 'finance' }, { attribute: 'region', value: 'eu' }] });
  await snap(page, 'scope-members');
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
  expect(data.authorizationScopeMembers.members).toEqual([
    { userId: shared.userId, assignments: [{ role: 'finance', attribute: null, value: null }, { role: null, attribute: 'region', value: 'eu' }] },
  ]);
});
