import { expect, snap, stack, test } from '../support/fixtures.ts';

interface OpenApi {
  info: { title: string };
  paths: Record<string, Record<string, { summary: string; operationId: string }>>;
}

/** The API reference at /docs, as a partner opens it: Redoc renders the served document with every operation. */
test('the API reference renders every operation of the served document', async ({ page }) => {
  const document = (await (await fetch(`${stack.apiUrl}/v1/openapi.json`)).json()) as OpenApi;
  const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
  expect(operations.length).toBeGreaterThan(50);
  await page.goto(`${stack.apiUrl}/docs`);
  await expect(page.getByRole('heading', { name: document.info.title, exact: false }).first()).toBeVisible();
  await expect(page.getByText('Something went wrong')).toHaveCount(0);
  // Redoc gives every operation an anchor named after its tag and operationId.
  for (const operation of operations) {
    await expect(page.locator(`[id$="/operation/${operation.operationId}"]`), operation.operationId).toHaveCount(1);
  }
  await snap(page, 'docs');
});
