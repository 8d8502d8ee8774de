import net from 'node:net';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

/**
 * The yield POST rules that need no chain work: every bad input is a 400 before anything exists,
 * the durable partner-scoped Idempotency-Key, the YIELD_EXECUTION switch and wallet eligibility.
 * No yield worker runs here, so every accepted operation stays `pending`.
 */
const POOL = 'poolprov-v3:84532:usdc';
const VAULT = 'vaultprov-v2-base-sepolia-demo-usdc';
const DAY_MS = 24 * 60 * 60 * 1000;

let devnets: LocalDevnets;
beforeAll(async () => {
  devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100, yieldMarkets: true });
});
afterAll(async () => {
  await devnets?.stop();
});

type Action = 'deposits' | 'withdrawals';

function client(app: TestApp, key: string) {
  return {
    post: (walletId: string, action: Action, body: unknown, idempotencyKey: string | undefined, options: { rawBody?: string } = {}) =>
      app.request('POST', `/v1/wallets/${walletId}/yield/${action}`, {
        key,
        ...(options.rawBody !== undefined ? { rawBody: options.rawBody } : { body }),
        headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
      }),
    wallet: async (type = 'EVM') => {
      const created = await app.request('POST', '/v1/wallets', { key, body: { type, userIdentifier: `yv-${type}-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body as { id: string; address: string };
    },
  };
}

/**
 * A POST written byte for byte on a socket: fetch and node:http refuse to send some of the header
 * values the key rule is about (DEL, bytes above 0x7E), and the server must refuse them itself.
 */
function rawPost(app: TestApp, path: string, apiKey: string, headerLine: string, body: string): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(app.baseUrl);
  const head = [`POST ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, `X-API-Key: ${apiKey}`, 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close', headerLine];
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [statusLine = '', ...rest] = text.split('\r\n');
      const payload = rest.join('\r\n').split('\r\n\r\n').slice(1).join('\r\n\r\n');
      let parsed: unknown = payload;
      try {
        parsed = JSON.parse(payload);
      } catch {
        // not JSON: the assertion shows it
      }
      resolve({ status: Number(statusLine.split(' ')[1]), body: parsed });
    });
    socket.write(Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}`, 'latin1'));
  });
}

const countOperations = async (app: TestApp, where = 'TRUE', values: unknown[] = []) =>
  Number((await app.database.query<{ n: string | number }>(`SELECT count(*) AS n FROM yield_operations WHERE ${where}`, values))[0]!.n);

/** What a refused POST must leave unchanged for the wallet: its operations, audit entries and transaction records. */
async function walletTrace(app: TestApp, walletId: string) {
  return {
    operations: await countOperations(app, 'wallet_id = $1', [walletId]),
    audit: await app.database.prisma.auditLog.count({ where: { walletId } }),
    records: await app.database.prisma.transactionRecord.count({ where: { walletId } }),
  };
}

/** Runs the refusals and checks nothing was created for the wallets (nor any operation anywhere). */
async function expectNothingCreated(app: TestApp, walletIds: string[], refusals: () => Promise<void>) {
  const total = await countOperations(app);
  const before = await Promise.all(walletIds.map((id) => walletTrace(app, id)));
  await refusals();
  expect(await Promise.all(walletIds.map((id) => walletTrace(app, id)))).toEqual(before);
  for (const trace of before) expect(trace).toMatchObject({ operations: 0, records: 0 });
  expect(await countOperations(app)).toBe(total);
}

describe.each(testDatabaseKinds)('yield POST validation, idempotency, switch and eligibility (%s)', (kind) => {
  let app: TestApp;
  let key: string;
  let projectId: string;
  let partnerId: string;
  let api: ReturnType<typeof client>;
  /** Moved forward to show the yield key has no 24-hour expiry. */
  let clockOffsetMs = 0;

  beforeAll(async () => {
    app = await startTestApp(kind, { chains: devnets, clock: { now: () => new Date(Date.now() + clockOffsetMs) } });
    const issued = await app.createKey();
    key = issued.apiKey;
    projectId = issued.projectId;
    partnerId = issued.partnerId;
    api = client(app, key);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers 400 INVALID_REQUEST for every bad field and creates nothing', async () => {
    const wallet = await api.wallet();
    const good = { marketId: POOL, amount: '10' };
    const longKey = 'k'.repeat(257);
    type Case = [name: string, action: Action, body: unknown, key: string | undefined, path: string | null, raw?: string];
    const cases: Case[] = [
      ['key missing', 'deposits', good, undefined, 'Idempotency-Key'],
      ['key empty', 'deposits', good, '', 'Idempotency-Key'],
      ['key 257 characters', 'deposits', good, longKey, 'Idempotency-Key'],
      ['key with a space', 'deposits', good, 'a b', 'Idempotency-Key'],
      ['key with a tab', 'deposits', good, 'a\tb', 'Idempotency-Key'],
      ['body an array', 'deposits', undefined, 'k-array', null, '[1]'],
      ['body a string', 'deposits', undefined, 'k-string', null, '"10"'],
      ['body null', 'withdrawals', undefined, 'k-null', null, 'null'],
      ['amount missing', 'deposits', { marketId: POOL }, 'k-missing', 'amount'],
      ...['0', '0.0', '-1', '1.1234567', '1e3', ' 1', '01x', '01', '1'.repeat(86), ''].map((amount): Case => [`amount ${JSON.stringify(amount)}`, 'deposits', { marketId: POOL, amount }, `k-amount-${amount.length}-${amount.trim().slice(0, 9)}`, 'amount']),
      ['amount a number', 'withdrawals', { marketId: POOL, amount: 10 }, 'k-number', 'amount'],
      ['"all" on a deposit', 'deposits', { marketId: VAULT, amount: 'all' }, 'k-all', 'amount'],
      ['unknown marketId', 'deposits', { marketId: 'poolprov-v3:84532:dai', amount: '1' }, 'k-unknown', 'marketId'],
      ['a production marketId not in local', 'withdrawals', { marketId: 'poolprov-v3:1:usdc', amount: '1' }, 'k-prod', 'marketId'],
      ['chainId 1 alone (no market here)', 'deposits', { chainId: 1, amount: '1' }, 'k-chain1', 'chainId'],
      ['chainId mismatching marketId', 'deposits', { marketId: POOL, chainId: 8453, amount: '1' }, 'k-mismatch', 'chainId'],
      ['chainId string mismatching marketId', 'withdrawals', { marketId: VAULT, chainId: '1', amount: '1' }, 'k-mismatch-s', 'chainId'],
      ['neither marketId nor chainId', 'deposits', { amount: '1' }, 'k-neither', 'marketId'],
      // The shared validator names an unknown key in the message, with the object itself ('') as path.
      ['extra field', 'deposits', { ...good, slippage: '0.5' }, 'k-extra', ''],
      ['no body at all', 'deposits', undefined, 'k-nobody', null],
      ['body an empty object', 'withdrawals', {}, 'k-empty', 'amount'],
      ['chainId with a leading zero', 'deposits', { chainId: '084532', amount: '1' }, 'k-084532', 'chainId'],
      ['chainId empty string', 'deposits', { chainId: '', amount: '1' }, 'k-chain-empty', 'chainId'],
      ['chainId "abc"', 'deposits', { chainId: 'abc', amount: '1' }, 'k-abc', 'chainId'],
      ['chainId 1.5', 'deposits', { chainId: 1.5, amount: '1' }, 'k-1.5', 'chainId'],
      ['chainId 99', 'deposits', { chainId: 99, amount: '1' }, 'k-99', 'chainId'],
      ['marketId empty', 'deposits', { marketId: '', amount: '1' }, 'k-empty-market', 'marketId'],
    ];
    await expectNothingCreated(app, [wallet.id], async () => {
      for (const [name, action, body, idempotencyKey, path, raw] of cases) {
        const response = await api.post(wallet.id, action, body, idempotencyKey, { rawBody: raw });
        const text = `${name}: ${response.status} ${JSON.stringify(response.body)}`;
        expect(response.status, text).toBe(400);
        expect(response.body.code, text).toBe('INVALID_REQUEST');
        if (path !== null) expect(response.body.details, text).toEqual(expect.arrayContaining([expect.objectContaining({ path })]));
      }
      // An amount is whole USDC, never base units: each refusal says so and quotes what it got.
      const wholeTokens = 'a positive decimal amount in whole tokens as a string (e.g. "1.5" for 1.5 USDC), not base units';
      const amountMessages: [Action, unknown, string][] = [
        ['deposits', '1e6', `expected ${wholeTokens}, got "1e6"`],
        ['deposits', 1500000, `expected ${wholeTokens}, got 1500000`],
        ['deposits', '0', `expected ${wholeTokens}, got "0"`],
        ['withdrawals', '-1', `expected ${wholeTokens}, got "-1"; or "all"`],
        ['deposits', '1.1234567', 'expected at most 6 decimals in whole tokens (USDC has 6), got "1.1234567"'],
        ['deposits', undefined, `required: ${wholeTokens}`],
      ];
      for (const [action, amount, message] of amountMessages) {
        const response = await api.post(wallet.id, action, { marketId: POOL, amount }, `k-unit-${action}-${String(amount)}`);
        expect(response.body, `${action} ${JSON.stringify(amount)}`).toEqual({ code: 'INVALID_REQUEST', message: `Invalid request: amount: ${message}`, details: [{ path: 'amount', message }] });
      }
      // Bytes outside 0x21-0x7E that HTTP clients refuse to send, written on the socket. Bytes above
      // 0x7F reach the app (INVALID_REQUEST); control characters and DEL are refused by Node's HTTP
      // parser itself with a bare 400 before any route runs (nothing can be created either way).
      for (const [value, code] of [['cl\xe9', 'INVALID_REQUEST'], ['ab\x80', 'INVALID_REQUEST'], ['a\x7fb', null], ['a\x01b', null]] as const) {
        const response = await rawPost(app, `/v1/wallets/${wallet.id}/yield/deposits`, key, `Idempotency-Key: ${value}`, JSON.stringify(good));
        const text = `key ${JSON.stringify(value)}: ${response.status} ${JSON.stringify(response.body)}`;
        expect(response.status, text).toBe(400);
        if (code) expect(response.body.code, text).toBe(code);
      }
    });

    // Corrected, the same wallet is accepted (also through the socket helper, so it is sound).
    const before = await countOperations(app);
    const viaSocket = await rawPost(app, `/v1/wallets/${wallet.id}/yield/deposits`, key, 'Idempotency-Key: socket-ok', JSON.stringify(good));
    expect(viaSocket.status, JSON.stringify(viaSocket.body)).toBe(202);
    const accepted = await api.post(wallet.id, 'deposits', { chainId: '84532', amount: '1' }, 'k-fixed');
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(accepted.body).toMatchObject({ marketId: POOL, chainId: 84532, amount: '1.0', status: 'pending' });
    expect(await countOperations(app)).toBe(before + 2);
  });

  it('answers 400 for a non-EVM wallet and 404 (one body) for foreign, missing and malformed wallets and operations', async () => {
    const mine = await api.wallet();
    const solana = await api.wallet('SOLANA');
    const other = await app.createKey();
    const stranger = client(app, other.apiKey);
    const theirs = await stranger.wallet();
    await expectNothingCreated(app, [solana.id, theirs.id, mine.id], async () => {
      for (const action of ['deposits', 'withdrawals'] as const) {
        const nonEvm = await api.post(solana.id, action, { marketId: POOL, amount: '1' }, `sol-${action}`);
        expect(nonEvm.status, JSON.stringify(nonEvm.body)).toBe(400);
        expect(nonEvm.body.code).toBe('INVALID_REQUEST');

        const foreign = await api.post(theirs.id, action, { marketId: POOL, amount: '1' }, `foreign-${action}`);
        const missing = await api.post(crypto.randomUUID(), action, { marketId: POOL, amount: '1' }, `missing-${action}`);
        const malformed = await api.post('not-a-uuid', action, { marketId: POOL, amount: '1' }, `malformed-${action}`);
        // A bad body on a foreign wallet still answers 404: the wallet is looked up first.
        const foreignBadBody = await api.post(theirs.id, action, { amount: 'x' }, undefined);
        for (const response of [foreign, missing, malformed, foreignBadBody]) {
          expect(response.status, JSON.stringify(response.body)).toBe(404);
          expect(response.body).toEqual(foreign.body);
        }
        expect(foreign.body).toEqual({ code: 'NOT_FOUND', message: 'Wallet not found' });
      }
    });

    // Operations: another partner's operation id under my own wallet is as missing as a random one.
    const theirOperation = await stranger.post(theirs.id, 'deposits', { marketId: POOL, amount: '2' }, 'their-op');
    expect(theirOperation.status).toBe(202);
    const ownOperation = await api.post(mine.id, 'deposits', { marketId: POOL, amount: '2' }, 'my-op');
    expect(ownOperation.status).toBe(202);
    const operationPath = (walletId: string, operationId: string) => `/v1/wallets/${walletId}/yield/operations/${operationId}`;
    const missingOperation = await app.request('GET', operationPath(mine.id, crypto.randomUUID()), { key });
    expect(missingOperation.status).toBe(404);
    expect(missingOperation.body).toEqual({ code: 'NOT_FOUND', message: 'Yield operation not found' });
    const probes = await Promise.all([
      app.request('GET', operationPath(mine.id, theirOperation.body.id), { key }),
      app.request('POST', `${operationPath(mine.id, theirOperation.body.id)}/cancel`, { key }),
      app.request('GET', operationPath(mine.id, 'not-a-uuid'), { key }),
      app.request('POST', `${operationPath(mine.id, 'not-a-uuid')}/cancel`, { key }),
      app.request('POST', `${operationPath(mine.id, crypto.randomUUID())}/cancel`, { key }),
      // My own operation under a foreign wallet id: that wallet is not found.
      app.request('GET', operationPath(theirs.id, ownOperation.body.id), { key }),
    ]);
    for (const response of probes) {
      expect(response.status, JSON.stringify(response.body)).toBe(404);
      expect(response.body.code).toBe('NOT_FOUND');
    }
    // Cross-partner, malformed and missing ids (GET and cancel) all answer the very same body.
    for (const response of probes.slice(0, 5)) expect(response.body).toEqual(missingOperation.body);
    // The probes changed nothing: their operation is still pending.
    const still = await stranger.post(theirs.id, 'deposits', { marketId: POOL, amount: '2' }, 'their-op');
    expect([still.status, still.body.status]).toEqual([202, 'pending']);
  });

  it('keeps one operation per partner and key: concurrent duplicates, normalized amounts, 409 on any other field, no expiry', async () => {
    const wallet = await api.wallet();
    const walletB = await api.wallet();
    const idem = `dup-${wallet.id}`;
    const answers = await Promise.all(Array.from({ length: 20 }, () => api.post(wallet.id, 'deposits', { marketId: POOL, amount: '10' }, idem)));
    const ids = new Set(answers.map((a) => a.body.id));
    expect(ids.size, JSON.stringify(answers.map((a) => [a.status, a.body]))).toBe(1);
    for (const answer of answers) expect([200, 202]).toContain(answer.status);
    const [id] = [...ids];
    expect(await countOperations(app, 'idempotency_key = $1', [idem])).toBe(1);
    expect(await countOperations(app, 'wallet_id = $1', [wallet.id])).toBe(1);

    for (const amount of ['10', '10.0', '10.000000']) {
      const again = await api.post(wallet.id, 'deposits', { chainId: 84532, amount }, idem);
      expect([again.status, again.body.id, again.body.amount]).toEqual([202, id, '10.0']);
    }

    const conflicts: [name: string, walletId: string, action: Action, body: unknown, differing: string[]][] = [
      ['amount', wallet.id, 'deposits', { marketId: POOL, amount: '10.000001' }, ['amount']],
      ['market (same chain)', wallet.id, 'deposits', { marketId: VAULT, amount: '10' }, ['marketId']],
      ['action (deposit key on withdrawals)', wallet.id, 'withdrawals', { marketId: POOL, amount: '10' }, ['action']],
      ['wallet', walletB.id, 'deposits', { marketId: POOL, amount: '10' }, ['walletId']],
      ['action and amount', wallet.id, 'withdrawals', { marketId: POOL, amount: 'all' }, ['action', 'amount']],
    ];
    for (const [name, walletId, action, body, differing] of conflicts) {
      const response = await api.post(walletId, action, body, idem);
      const text = `${name}: ${JSON.stringify(response.body)}`;
      expect(response.status, text).toBe(409);
      expect(response.body.code, text).toBe('CONFLICT');
      expect(response.body.details.map((d: { path: string }) => d.path), text).toEqual(differing);
    }
    expect(await countOperations(app, 'idempotency_key = $1', [idem])).toBe(1);

    // Same key, other chain: a stored operation on a chain that has no market in this deployment
    // (as one created before a configuration change) answers CONFLICT naming chainId and marketId.
    const chainKey = `chain-${wallet.id}`;
    await app.database.prisma.yieldOperation.create({
      data: { id: crypto.randomUUID(), projectId, partnerId, walletId: walletB.id, environment: 'development', idempotencyKey: chainKey, chainId: 1, marketId: 'poolprov-v3:1:usdc', source: 'poolprov-v3', action: 'deposit', amount: '10.0', status: 'pending', plan: {}, nextRunAt: null, createdAt: new Date() },
    });
    const otherChain = await api.post(walletB.id, 'deposits', { chainId: 84532, amount: '10' }, chainKey);
    expect(otherChain.status, JSON.stringify(otherChain.body)).toBe(409);
    expect(otherChain.body.details.map((d: { path: string }) => d.path)).toEqual(['chainId', 'marketId']);

    // Keys are partner-scoped: another partner with the same key gets its own operation.
    const other = await app.createKey();
    const stranger = client(app, other.apiKey);
    const theirWallet = await stranger.wallet();
    const theirs = await stranger.post(theirWallet.id, 'deposits', { marketId: POOL, amount: '10' }, idem);
    expect(theirs.status, JSON.stringify(theirs.body)).toBe(202);
    expect(theirs.body.id).not.toBe(id);
    expect(await countOperations(app, 'idempotency_key = $1', [idem])).toBe(2);

    // No 24-hour expiry: two days later the key still answers the same operation and still refuses other work.
    clockOffsetMs = 2 * DAY_MS + 60_000;
    try {
      const later = await api.post(wallet.id, 'deposits', { marketId: POOL, amount: '10.00' }, idem);
      expect([later.status, later.body.id]).toEqual([202, id]);
      const laterConflict = await api.post(wallet.id, 'deposits', { marketId: POOL, amount: '11' }, idem);
      expect([laterConflict.status, laterConflict.body.code]).toEqual([409, 'CONFLICT']);
      // The clock really moved for the service: a new operation is stamped two days ahead.
      const fresh = await api.post(wallet.id, 'deposits', { marketId: POOL, amount: '1' }, `fresh-${wallet.id}`);
      expect(Date.parse(fresh.body.createdAt) - Date.now()).toBeGreaterThan(2 * DAY_MS);
    } finally {
      clockOffsetMs = 0;
    }
    expect(await countOperations(app, 'idempotency_key = $1', [idem])).toBe(2);
  });

  it('refuses claimed (403 WALLET_ALREADY_CLAIMED), client-custody (403 WALLET_NOT_MIGRATED) and unready (409 WALLET_NOT_READY) wallets', async () => {
    const email = `yield-claim-${Math.random().toString(36).slice(2)}@example.com`;
    const claimed = await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: email, userIdentifierType: 'EMAIL' } });
    expect(claimed.status).toBe(201);
    const signup = await app.services.users.signUp({ projectId, identifier: email, identifierType: 'EMAIL' });
    expect(signup.claimedWalletIds).toEqual([claimed.body.id]);
    const { wallet: pregen } = await app.services.users.pregenerateClientWallet({ projectId, type: 'EVM' as never, userIdentifier: `yield-pregen-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' });
    await expectNothingCreated(app, [claimed.body.id, pregen.id], async () => {
      for (const action of ['deposits', 'withdrawals'] as const) {
        const response = await api.post(claimed.body.id, action, { marketId: POOL, amount: '1' }, `claimed-${action}`);
        expect(response.status, JSON.stringify(response.body)).toBe(403);
        expect(response.body.code).toBe('WALLET_ALREADY_CLAIMED');
        const clientCustody = await api.post(pregen.id, action, { marketId: POOL, amount: '1' }, `pregen-${action}`);
        expect(clientCustody.status, JSON.stringify(clientCustody.body)).toBe(403);
        expect(clientCustody.body.code).toBe('WALLET_NOT_MIGRATED');
      }
      // Bad input is still 400 first, and a missing key too: eligibility is checked after validation.
      expect((await api.post(claimed.body.id, 'deposits', { marketId: POOL, amount: '0' }, 'claimed-bad')).status).toBe(400);
    });
    // Key generation not complete (a wallet row still `creating`, as a crashed creation leaves it): 409.
    const unready = await api.wallet();
    await app.database.prisma.wallet.update({ where: { id: unready.id }, data: { status: 'creating' } });
    await expectNothingCreated(app, [unready.id], async () => {
      const response = await api.post(unready.id, 'deposits', { marketId: POOL, amount: '1' }, `unready-${unready.id}`);
      expect([response.status, response.body.code], JSON.stringify(response.body)).toEqual([409, 'WALLET_NOT_READY']);
    });
    // Reads stay available to the claimed wallet's partner.
    expect((await app.request('GET', `/v1/wallets/${claimed.body.id}/yield/markets`, { key })).status).toBe(200);
  });
});

describe.each(testDatabaseKinds)('YIELD_EXECUTION switch (%s)', (kind) => {
  /** An operation stored before the operator turned execution off (the switch only guards new work). */
  async function seedOperation(app: TestApp, issued: { projectId: string; partnerId: string }, walletId: string) {
    const id = crypto.randomUUID();
    await app.database.prisma.yieldOperation.create({
      data: { id, projectId: issued.projectId, partnerId: issued.partnerId, walletId, environment: 'development', idempotencyKey: `seed-${id}`, chainId: 84532, marketId: POOL, source: 'poolprov-v3', action: 'deposit', amount: '5.0', status: 'pending', plan: {}, nextRunAt: new Date() },
    });
    return id;
  }

  it('disabled: deposits and withdrawals are 409 YIELD_DISABLED and create nothing; markets, get and cancel stay available', async () => {
    const app = await startTestApp(kind, { chains: devnets, env: { YIELD_EXECUTION: 'disabled' } });
    try {
      const issued = await app.createKey();
      const api = client(app, issued.apiKey);
      const wallet = await api.wallet();
      await expectNothingCreated(app, [wallet.id], async () => {
        for (const [action, body] of [['deposits', { marketId: POOL, amount: '1' }], ['withdrawals', { marketId: VAULT, amount: 'all' }], ['withdrawals', { chainId: 84532, amount: '2.5' }]] as const) {
          const response = await api.post(wallet.id, action, body, `off-${action}-${body.amount}`);
          expect(response.status, JSON.stringify(response.body)).toBe(409);
          expect(response.body.code).toBe('YIELD_DISABLED');
        }
        // Validation still comes first: a bad body is a 400, not a 409.
        expect((await api.post(wallet.id, 'deposits', { marketId: POOL, amount: '0' }, 'off-bad')).status).toBe(400);
      });
      expect(await countOperations(app)).toBe(0);

      const markets = await app.request('GET', `/v1/wallets/${wallet.id}/yield/markets`, { key: issued.apiKey });
      expect(markets.status).toBe(200);
      expect(markets.body.markets.map((m: { id: string }) => m.id)).toEqual(expect.arrayContaining([POOL, VAULT]));
      const operationId = await seedOperation(app, issued, wallet.id);
      const path = `/v1/wallets/${wallet.id}/yield/operations/${operationId}`;
      const read = await app.request('GET', path, { key: issued.apiKey });
      expect([read.status, read.body.status]).toEqual([200, 'pending']);
      const cancelled = await app.request('POST', `${path}/cancel`, { key: issued.apiKey });
      expect([cancelled.status, cancelled.body.status], JSON.stringify(cancelled.body)).toEqual([200, 'cancelled']);
      // Its own key again: the stored (cancelled) operation, not YIELD_DISABLED.
      const again = await api.post(wallet.id, 'deposits', { marketId: POOL, amount: '5' }, `seed-${operationId}`);
      expect([again.status, again.body.id, again.body.status]).toEqual([200, operationId, 'cancelled']);
      expect(await countOperations(app)).toBe(1);
    } finally {
      await app.close();
    }
  });

  it('withdrawals-only: deposits are 409 YIELD_DISABLED, withdrawals are accepted', async () => {
    const app = await startTestApp(kind, { chains: devnets, env: { YIELD_EXECUTION: 'withdrawals-only' } });
    try {
      const issued = await app.createKey();
      const api = client(app, issued.apiKey);
      const wallet = await api.wallet();
      const deposit = await api.post(wallet.id, 'deposits', { marketId: VAULT, amount: '1' }, 'wo-dep');
      expect([deposit.status, deposit.body.code]).toEqual([409, 'YIELD_DISABLED']);
      expect(await countOperations(app)).toBe(0);
      const withdrawal = await api.post(wallet.id, 'withdrawals', { marketId: VAULT, amount: 'all' }, 'wo-wd');
      expect(withdrawal.status, JSON.stringify(withdrawal.body)).toBe(202);
      expect(withdrawal.body).toMatchObject({ action: 'withdraw', amount: 'all', status: 'pending', marketId: VAULT });
      expect(await countOperations(app)).toBe(1);
      // The deposit key was never stored: it is free for a withdrawal.
      const reused = await api.post(wallet.id, 'withdrawals', { marketId: POOL, amount: '1' }, 'wo-dep');
      expect(reused.status, JSON.stringify(reused.body)).toBe(202);
      expect(await countOperations(app)).toBe(2);
    } finally {
      await app.close();
    }
  });
});
