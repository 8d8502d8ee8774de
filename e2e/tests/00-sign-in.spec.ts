import { expect, signIn, snap, stack, test } from '../support/fixtures.ts';

test('a signed-out visitor is sent to sign-in, and a wrong password is refused in the page', async ({ page }) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.getByLabel('Email').fill('not-an-email');
  await page.getByLabel('Password').fill('x');
  await page.getByRole('button', { name: 'Sign in' }).click();
  // Validated in the browser with the API's schema: nothing was sent.
  await expect(page.locator('form').getByRole('alert').first()).toBeVisible();
  await page.getByLabel('Email').fill(stack.owner.email);
  await page.getByLabel('Password').fill('wrong-password-123');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.locator('form').getByRole('alert')).toContainText('Invalid email or password');
  await snap(page, 'sign-in');
});

test('the local owner signs in with the printed credentials, and signs out', async ({ page }) => {
  await signIn(page, stack.owner);
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await expect(page.getByTestId('whoami')).toContainText('owner');
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto('/');
  await expect(page).toHaveURL(/\/sign-in$/);
});
