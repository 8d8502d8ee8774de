import { randomUUID } from 'node:crypto';
import { newEventId, type NewTransactionRecord, type TransactionRecord } from '@wallet/domain';
import { expect } from 'vitest';
import type { TestApp } from './harness.ts';
import { staffClient } from './staff-client.ts';
import { transactionRecordFixture } from '@wallet/domain/transactions/testing.ts';

const unique = () => Math.random().toString(36).slice(2);

type StaffRole = 'owner' | 'developer' | 'support';
const allRoles: readonly StaffRole[] = ['owner', 'developer', 'support'];

/** A partner with one project (and its API key) and a signed-in console client per role (`roles`: only these, fewer sign-ins). */
export async function consolePartner<R extends StaffRole = StaffRole>(app: TestApp, passwords: string[] = [], roles: readonly R[] = allRoles as readonly R[]) {
  const partner = `partner-${unique()}`;
  const key = await app.createKey({ partner, project: 'main' });
  const sessions = {} as Record<R, ReturnType<typeof staffClient>['client']>;
  const cookies = {} as Record<R, string>;
  let partnerId = '';
  for (const role of roles) {
    const account = await app.services.staff.createAccount({ partner, email: `${role}-${unique()}@example.com`, role });
    passwords.push(account.password!);
    partnerId = account.partnerId;
    const session = staffClient(app.baseUrl);
    await session.signIn(account.email, account.password!);
    sessions[role] = session.client;
    cookies[role] = session.state.cookie!;
  }
  return { partner, partnerId, key, cookies, ...sessions };
}

/** A wallet created over REST with the key. */
export async function restWallet(app: TestApp, apiKey: string, body: Record<string, unknown> = {}) {
  const response = await app.request('POST', '/v1/wallets', {
    key: apiKey,
    body: { type: 'EVM', userIdentifier: `user-${unique()}`, userIdentifierType: 'CUSTOM_ID', ...body },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { id: string; address: string; userIdentifier: string; type: string };
}

/**
 * A broadcast record written through the store (as the transfer path writes it), with its
 * `send.broadcasted` event, for reads that do not need a chain.
 */
export async function storedRecord(
  app: TestApp,
  wallet: { id: string; address: string },
  owner: { projectId: string; partnerId: string; apiKeyId: string },
  patch: Partial<NewTransactionRecord> = {},
): Promise<TransactionRecord> {
  const hash = `0x${randomUUID().replace(/-/g, '')}${randomUUID().replace(/-/g, '')}`;
  const record = transactionRecordFixture({
    projectId: owner.projectId,
    partnerId: owner.partnerId,
    walletId: wallet.id,
    fromAddress: wallet.address,
    to: '0x000000000000000000000000000000000000dEaD',
    value: '1000',
    hash,
    apiKeyId: owner.apiKeyId,
    nextCheckAt: null,
    ...patch,
  });
  const event = {
    id: newEventId(),
    projectId: owner.projectId,
    type: 'send.broadcasted',
    data: { userId: null, walletId: wallet.id, txHash: record.hash, type: 'EVM', evmChainId: '84532', isDevnet: true, broadcastedAt: new Date().toISOString() },

    transactionId: record.id,
  };
  return app.services.stores.transactions.create(record, [event]);
}

export interface GraphQLResponse {
  status: number;
  body: { data?: any; errors?: Array<{ message: string; path?: string[]; extensions?: Record<string, unknown> }> };
}

/** A GraphQL request to /graphql as the console sends it (session cookie, JSON POST). */
export async function graphql(app: TestApp, cookie: string | undefined, query: string, variables: Record<string, unknown> = {}): Promise<GraphQLResponse> {
  const response = await fetch(`${app.baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json, application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ query, variables }),
  });
  return { status: response.status, body: (await response.json()) as GraphQLResponse['body'] };
}
