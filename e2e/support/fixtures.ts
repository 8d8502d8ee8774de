import { expect, test as base, type Page } from '@playwright/test';
import { createClient, type WalletClient } from '@wallet/client';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { appendContractLog, checkResponse, servedResponseContract, type ServedResponseContract } from '../../apps/api/src/testing/response-contract.ts';
import { repoRoot } from './stack.ts';

export interface Credentials {
  email: string;
  password: string;
}

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suites through playwright (global setup starts the stack)`);
  return value;
};

export const stack = {
  get apiUrl() {
    return env('E2E_API_URL');
  },
  get consoleUrl() {
    return env('E2E_CONSOLE_URL');
  },
  get owner() {
    return JSON.parse(env('E2E_OWNER')) as Credentials & { partnerId: string };
  },
  get support() {
    return JSON.parse(env('E2E_SUPPORT')) as Credentials;
  },
  get dataDir() {
    return env('E2E_DATA_DIR');
  },
};

/**
 * A secret a test saw (an API key or webhook secret shown once, a session cookie): the global
 * teardown fails the run when the service's output contains it (tests run in worker processes,
 * so the list is a file).
 */
export function rememberSecret(value: string) {
  if (value) appendFileSync(env('E2E_SECRETS_FILE'), `${value}\n`);
}

let contract: ServedResponseContract | undefined;
/** The document the running stack serves, fetched once per worker (on its first /v1 answer). */
const servedContract = () => (contract ??= servedResponseContract(stack.apiUrl));
const mismatches: string[] = [];
/** The `operationId:status` of each answer checked, by spec file (one entry per answer). */
const checkedPairsByFile = new Map<string, string[]>();

/**
 * The fetch under `callApi` and `apiClient`: each /v1 answer is checked against the served document
 * (response-contract.ts, as in the API tests) before the test reads it; a mismatch throws, naming
 * the operation, the status and the first schema error.
 */
async function checkedFetch(request: Request): Promise<Response> {
  const response = await fetch(request);
  try {
    await checkResponse(servedContract(), request.method, request.url, response);
  } catch (error) {
    mismatches.push((error as Error).message);
    throw error;
  }
  return response;
}

export const test = base.extend<{ checkedAnswers: void }, { responseContractLog: void }>({
  baseURL: async ({}, use) => {
    await use(stack.consoleUrl);
  },
  /** Counts each test's checked answers by file, and fails a test that went on past a mismatch (it caught the throw). */
  checkedAnswers: [
    async ({}, use, testInfo) => {
      const [validated, mismatched] = [contract?.validated ?? 0, mismatches.length];
      await use();
      const file = path.relative(repoRoot, testInfo.file);
      checkedPairsByFile.set(file, [...(checkedPairsByFile.get(file) ?? []), ...(contract?.checkedPairs.slice(validated) ?? [])]);
      if (mismatches.length > mismatched && testInfo.status === 'passed') throw new Error(mismatches[mismatched]);
    },
    { auto: true },
  ],
  /** With RESPONSE_CONTRACT_LOG set, appends `<answers checked>\t<spec file>\t<operationId:status,…>` per file when the worker ends (as the API tests do). */
  responseContractLog: [
    async ({}, use) => {
      await use();
      const log = process.env.RESPONSE_CONTRACT_LOG;
      if (log) for (const [file, pairs] of checkedPairsByFile) appendContractLog(log, file, pairs);
    },
    { scope: 'worker', auto: true },
  ],
});
export { expect };

/** A full-page screenshot kept as a test artifact (e2e/artifacts/NAME.png). */
export async function snap(page: Page, name: string) {
  await page.screenshot({ path: path.join(repoRoot, 'e2e/artifacts', `${name}.png`), fullPage: true });
}

export async function signIn(page: Page, who: Credentials) {
  await page.goto('/sign-in');
  await page.getByLabel('Email').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('whoami')).toContainText(who.email);
  const session = (await page.context().cookies()).find((cookie) => cookie.name === 'wallet_session');
  rememberSecret(session?.value ?? '');
}

/** Follows a link of the console's main navigation. */
export async function nav(page: Page, name: string) {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
}

/** Creates a project in the console and its first API key; answers the key's secret (shown once), remembered for the leak check. */
export async function newProjectWithKey(page: Page, project: string): Promise<string> {
  await nav(page, 'Projects & API keys');
  await page.getByLabel('New project name').fill(project);
  await page.getByRole('button', { name: 'Create project' }).click();
  await expect(page.getByText('No API keys in this project')).toBeVisible();
  await page.getByRole('form', { name: 'New API key' }).getByRole('button', { name: 'Create API key' }).click();
  const secret = page.getByTestId('secret-once');
  await expect(secret).toHaveText(/^sk_/);
  const apiKey = (await secret.textContent())!.trim();
  rememberSecret(apiKey);
  await page.getByRole('button', { name: 'Done' }).click();
  return apiKey;
}

/** A command of the operator CLIs (keys, policies…), sent to the running service through its control file. */
export async function cli(command: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const control = JSON.parse(readFileSync(path.join(stack.dataDir, 'control.json'), 'utf8')) as { url: string; token: string };
  const response = await fetch(`${control.url}/internal/cli/${command}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${control.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(args),
  });
  const body = (await response.json()) as Record<string, unknown>;
  expect(response.status, `${command}: ${JSON.stringify(body)}`).toBe(200);
  return body;
}

/** A /v1 answer: status, headers and JSON body. */
export interface ApiAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

/** A /v1 call with a partner's API key, as the partner's backend makes it (its answer checked against the document). */
export async function callApi(apiKey: string, method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiAnswer> {
  const response = await checkedFetch(
    new Request(`${stack.apiUrl}${urlPath}`, {
      method,
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

/** A /v1 call that must succeed (2xx): its JSON body. */
export async function callApiOk(apiKey: string, method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const answer = await callApi(apiKey, method, urlPath, body, headers);
  expect(answer.status, `${method} ${urlPath}: ${JSON.stringify(answer.body)}`).toBeLessThan(300);
  return answer.body;
}

/** The typed client (@wallet/client) with a partner's API key, against the running stack: how a partner's backend calls /v1. */
export function apiClient(apiKey: string): WalletClient {
  return createClient({ baseUrl: stack.apiUrl, apiKey, fetch: checkedFetch });
}
