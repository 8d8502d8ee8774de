import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { clientTypesRelativePath, generateClientTypes, readCheckedInClientTypes, REGENERATE_COMMAND, servedOpenApiDocument } from './client-types.ts';

/** @wallet/client's checked-in types are those of the document the service serves. */
describe('the generated client types', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('pglite');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('are built from the same document the service serves (in-process build = /v1/openapi.json)', async () => {
    const served = await (await fetch(`${app.baseUrl}/v1/openapi.json`)).json();
    // This app runs without local devnets, so it serves no /v1/local route.
    expect(served).toEqual(JSON.parse(JSON.stringify(servedOpenApiDocument({ local: false }))));
    const local = servedOpenApiDocument({ local: true });
    expect(Object.keys(local.paths).filter((path) => !(path in served.paths))).toEqual(['/v1/local/faucet', '/v1/local/devnets']);
  });

  it('match what the current document generates', async () => {
    const generated = await generateClientTypes();
    const checkedIn = readCheckedInClientTypes();
    expect(checkedIn === generated, `${clientTypesRelativePath} is stale: run \`${REGENERATE_COMMAND}\` and commit the result`).toBe(true);
  });
});
