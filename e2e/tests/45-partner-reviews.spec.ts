import type { Page } from '@playwright/test';
import { callApi, expect, nav, newProjectWithKey, signIn, snap, stack, test } from '../support/fixtures.ts';

/**
 * Partner reviews in the console: an owner activates a policy on the Policies page whose
 * require_approval rule has no approvalRequirement (the app reviews EVM values above 0.001 ETH);
 * transfers over REST get POLICY_REVIEW_REQUIRED. On Reviews & cases the owner approves one in
 * the queue (the identical resend signs and confirms) and rejects one there (the resend is
 * POLICY_DENIED), then approves and rejects one each from the case detail. Support sees the queue
 * and the case without any decision control, and the API refuses its decision.
 */
test.describe.configure({ mode: 'serial' });

const PROJECT = 'partner reviews e2e';
const LARGE = '2000000000000000'; // 0.002 ETH: above the policy's 0.001 ETH
const DEAD = '0x000000000000000000000000000000000000dEaD';
const POLICY = {
  id: 'partner-review',
  schemaVersion: 'permissions.policy.v1',
  version: '1',
  selector: { walletType: 'EVM', chainId: ['84532'] },
  metadata: { productMode: 'guardrail' },
  rules: [{ id: 'review-large', effect: 'require_approval', actions: 'all', condition: { fact: 'request.value.baseUnits', op: 'gt', value: '1000000000000000' } }],
};
/** A paused transfer: its Idempotency-Key, wallet and review. */
type Review = { key: string; walletId: string; reviewId: string };
const shared = { apiKey: '', projectId: '', pending: { key: '', walletId: '', reviewId: '' } as Review };

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => callApi(shared.apiKey, method, path, body, headers);

/** The same Idempotency-Key and body each time: a resend is identical. */
const transfer = (key: string, walletId: string) => send('POST', `/v1/wallets/${walletId}/transfer`, { to: DEAD, value: LARGE, chainId: 84532 }, { 'Idempotency-Key': key });

/**
 * A funded wallet of its own whose transfer waits for review: a pending transfer case holds its
 * wallet's next nonce, so a second paused transfer of one wallet would get 409 instead.
 */
async function paused(key: string): Promise<Review> {
  const wallet = await send('POST', '/v1/wallets', { type: 'EVM', userIdentifier: `${key}@example.com`, userIdentifierType: 'EMAIL' });
  expect(wallet.status, JSON.stringify(wallet.body)).toBeLessThan(300);
  const walletId = wallet.body.id as string;
  const funded = await send('POST', '/v1/local/faucet', { walletId, amount: '1', token: 'native' });
  expect(funded.status, JSON.stringify(funded.body)).toBeLessThan(300);
  const answer = await transfer(key, walletId);
  expect(answer.status, JSON.stringify(answer.body)).toBe(403);
  expect(answer.body).toMatchObject({ code: 'POLICY_REVIEW_REQUIRED', reviewId: expect.any(String) });
  return { key, walletId, reviewId: answer.body.reviewId as string };
}

/** The approved review's resend signs; its record reaches `confirmed` on the devnet (1 s blocks). */
async function resendConfirms({ key, walletId }: Review) {
  const sent = await transfer(key, walletId);
  expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  const recordPath = `/v1/wallets/${walletId}/transactions/${sent.body.transactionId as string}`;
  await expect.poll(async () => (await send('GET', recordPath)).body.status, { timeout: 60_000, intervals: [1000] }).toBe('confirmed');
}

async function resendDenied({ key, walletId, reviewId }: Review) {
  const denied = await transfer(key, walletId);
  expect(denied.status, JSON.stringify(denied.body)).toBe(403);
  expect(denied.body).toMatchObject({ code: 'POLICY_DENIED', deniedBy: [{ reason: 'review-rejected', caseId: reviewId }] });
}

async function openCases(page: Page) {
  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await nav(page, 'Reviews & cases');
  await expect(page.getByRole('heading', { name: 'Reviews & cases', exact: true })).toBeVisible();
  const queue = page.getByRole('region', { name: 'Partner reviews' });
  await expect(queue.getByText('Partner reviews not available')).toHaveCount(0);
  return queue;
}

async function openCase(page: Page, caseId: string) {
  await page.getByRole('button', { name: `Open case ${caseId}` }).click();
  const detail = page.getByRole('region', { name: 'Case detail' });
  await expect(detail.getByTestId('case-detail')).toHaveAttribute('data-status', 'pending');
  await expect(detail.getByTestId('case-partner-review')).toHaveAttribute('data-decision', 'none');
  return detail;
}

test('an owner activates a partner review policy, approves and rejects reviews in the queue; the resends sign or are denied', async ({ page }) => {
  await signIn(page, stack.owner);
  shared.apiKey = await newProjectWithKey(page, PROJECT);
  const projects = (await (await page.request.get('/trpc/projects.list')).json()) as { result: { data: { projectId: string; name: string }[] } };
  shared.projectId = projects.result.data.find((p) => p.name === PROJECT)!.projectId;

  await page.getByRole('combobox', { name: 'Project', exact: true }).selectOption({ label: PROJECT });
  await nav(page, 'Policies');
  await page.getByLabel('Policy JSON').fill(JSON.stringify(POLICY, null, 2));
  await expect(page.getByTestId('policy-validation')).toContainText('Valid.');
  await page.getByRole('button', { name: 'Activate', exact: true }).click();
  await expect(page.getByText('Activated partner-review version 1.')).toBeVisible();

  const approved = await paused('e2e-review-approve');
  const rejected = await paused('e2e-review-reject');
  const [approvedId, rejectedId] = [approved.reviewId, rejected.reviewId];

  const queue = await openCases(page);
  const approvedRow = queue.getByTestId(`review-${approvedId}`);
  await expect(approvedRow).toHaveAttribute('data-status', 'pending');
  await expect(approvedRow).toContainText('0.002 ETH'); // LARGE in the token's symbol and decimals
  await expect(queue.getByTestId(`review-${rejectedId}`)).toHaveAttribute('data-status', 'pending');
  await snap(page, 'partner-review-queue');

  await queue.getByRole('button', { name: `Approve review ${approvedId}` }).click();
  await expect(approvedRow).toHaveAttribute('data-status', 'approved');
  await expect(approvedRow).toContainText('by staff member');
  await resendConfirms(approved);

  const rejectedRow = queue.getByTestId(`review-${rejectedId}`);
  await queue.getByRole('button', { name: `Reject review ${rejectedId}` }).click();
  await queue.getByRole('button', { name: `Confirm reject review ${rejectedId}` }).click();
  await expect(rejectedRow).toHaveAttribute('data-status', 'rejected');
  await resendDenied(rejected);
  await snap(page, 'partner-review-queue-decided');
});

test('the owner approves and rejects a partner review from the case detail', async ({ page }) => {
  const approved = await paused('e2e-case-approve');
  const rejected = await paused('e2e-case-reject');
  const [approvedId, rejectedId] = [approved.reviewId, rejected.reviewId];
  await signIn(page, stack.owner);
  await openCases(page);

  let detail = await openCase(page, approvedId);
  await detail.getByRole('button', { name: `Approve review ${approvedId}` }).click();
  await expect(detail.getByTestId('case-detail')).toHaveAttribute('data-status', 'completed');
  await expect(detail.getByTestId('case-partner-review')).toHaveAttribute('data-decision', 'approve');
  await expect(detail.getByRole('button', { name: /^(Approve|Reject) review/ })).toHaveCount(0);
  // The queue shows the decision taken in the detail.
  await expect(page.getByTestId(`review-${approvedId}`)).toHaveCount(0);
  await resendConfirms(approved);

  detail = await openCase(page, rejectedId);
  await detail.getByRole('button', { name: `Reject review ${rejectedId}` }).click();
  await snap(page, 'case-partner-review-confirm-reject');
  await detail.getByRole('button', { name: `Confirm reject review ${rejectedId}` }).click();
  await expect(detail.getByTestId('case-detail')).toHaveAttribute('data-status', 'rejected');
  await expect(detail.getByTestId('case-partner-review')).toHaveAttribute('data-decision', 'reject');
  await resendDenied(rejected);

  // One more that stays pending, for support to look at.
  shared.pending = await paused('e2e-review-pending');
});

test('support sees the queue and the case without approve or reject, and the API refuses its decision', async ({ page }) => {
  await signIn(page, stack.support);
  const queue = await openCases(page);
  await expect(queue.getByTestId(`review-${shared.pending.reviewId}`)).toHaveAttribute('data-status', 'pending');
  await expect(queue.getByText('Only owners approve or reject partner reviews.')).toBeVisible();
  await expect(queue.getByRole('button', { name: /Approve|Reject/ })).toHaveCount(0);
  const detail = await openCase(page, shared.pending.reviewId);
  await expect(detail.getByRole('button', { name: /Approve|Reject/ })).toHaveCount(0);
  await snap(page, 'support-partner-reviews');

  const refused = await page.request.post('/trpc/partnerReviews.approve', {
    headers: { 'x-csrf-protection': '1' },
    data: { projectId: shared.projectId, environment: 'development', reviewId: shared.pending.reviewId },
  });
  expect(refused.status()).toBe(403);
  expect((await send('GET', `/v1/permissions-v2/reviews/${shared.pending.reviewId}`)).body).toMatchObject({ status: 'pending', decidedBy: null });
});
