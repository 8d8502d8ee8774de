import { fromBech32 } from '@cosmjs/encoding';
import { isValidSuiAddress } from '@mysten/sui/utils';
import { isAddress as isSolanaAddress } from '@solana/kit';
import { StrKey } from '@stellar/stellar-sdk';
import { testDatabaseKinds } from '@wallet/db';
import { isAddress, getAddress } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';

const email = () => `user-${Math.random().toString(36).slice(2)}@example.com`;

describe.each(testDatabaseKinds)('wallets over HTTP on %s', (kind) => {
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    app = await startTestApp(kind);
    key = (await app.createKey()).apiKey;
  });
  afterAll(async () => {
    const logs = app.logLines.join('');
    for (const secret of app.secrets()) expect(logs).not.toContain(secret);
    await app.close();
  });

  const create = (body: unknown, extra: { key?: string; headers?: Record<string, string> } = {}) =>
    app.request('POST', '/v1/wallets', { key: extra.key ?? key, body, headers: extra.headers });

  const countRows = async () => ({
    wallets: await app.database.prisma.wallet.count(),
    shares: await app.database.prisma.keyShare.count(),
    audit: await app.database.prisma.auditLog.count(),
  });

  it('creates a wallet of each type whose address passes the chain validator', async () => {
    const identifier = email();
    const validators: Record<string, (address: string, body: any) => void> = {
      EVM: (address) => {
        expect(isAddress(address, { strict: true })).toBe(true);
        expect(getAddress(address)).toBe(address);
      },
      COSMOS: (address) => {
        const decoded = fromBech32(address, 90);
        expect(decoded.prefix).toBe('cosmos');
        expect(decoded.data).toHaveLength(20);
      },
      SOLANA: (address) => expect(isSolanaAddress(address)).toBe(true),
      STELLAR: (address) => expect(StrKey.isValidEd25519PublicKey(address)).toBe(true),
      SUI: (address) => {
        expect(isValidSuiAddress(address)).toBe(true);
        expect(address).toMatch(/^0x[0-9a-f]{64}$/);
      },
    };
    for (const [type, validate] of Object.entries(validators)) {
      const response = await create({ type, userIdentifier: identifier, userIdentifierType: 'EMAIL' });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      expect(response.body).toMatchObject({
        type,
        scheme: type === 'EVM' || type === 'COSMOS' ? 'DKLS' : 'ED25519',
        status: 'ready',
        userIdentifier: identifier,
        userIdentifierType: 'EMAIL',
      });
      expect(response.body.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(typeof response.body.publicKey).toBe('string');
      expect(new Date(response.body.createdAt).toISOString()).toBe(response.body.createdAt);
      validate(response.body.address, response.body);
      const fetched = await app.request('GET', `/v1/wallets/${response.body.id}`, { key });
      expect(fetched.status).toBe(200);
      expect(fetched.body).toEqual(response.body);
    }
  });

  it('answers 201 with Location: /v1/wallets/{id}, documented on that answer, and no Location on a refusal', async () => {
    const created = await create({ type: 'EVM', userIdentifier: email(), userIdentifierType: 'EMAIL' });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v1/wallets/${created.body.id}`);
    const followed = await app.request('GET', created.headers.get('location')!, { key });
    expect(followed.status).toBe(200);
    expect(followed.body).toEqual(created.body);
    const duplicate = await create({ type: 'EVM', userIdentifier: created.body.userIdentifier, userIdentifierType: 'EMAIL' });
    expect(duplicate.status).toBe(409);
    expect(duplicate.headers.get('location')).toBeNull();
    const document = await app.request('GET', '/v1/openapi.json');
    const answer = document.body.paths['/v1/wallets'].post.responses['201'];
    expect(answer.headers.Location).toMatchObject({ schema: { type: 'string' } });
    expect(answer.headers.Location.description).toContain('/v1/wallets/{id}');
  });

  it('uses a custom cosmos prefix and rejects it on other types', async () => {
    const ok = await create({ type: 'COSMOS', userIdentifier: 'c-1', userIdentifierType: 'CUSTOM_ID', cosmosPrefix: 'osmo' });
    expect(ok.status).toBe(201);
    expect(ok.body.cosmosPrefix).toBe('osmo');
    expect(fromBech32(ok.body.address, 90).prefix).toBe('osmo');
    const wrongType = await create({ type: 'EVM', userIdentifier: 'c-2', userIdentifierType: 'CUSTOM_ID', cosmosPrefix: 'osmo' });
    expect(wrongType.status).toBe(400);
    const badPrefix = await create({ type: 'COSMOS', userIdentifier: 'c-3', userIdentifierType: 'CUSTOM_ID', cosmosPrefix: 'Bad Prefix' });
    expect(badPrefix.status).toBe(400);
  });

  it('answers a duplicate with 409 WALLET_ALREADY_EXISTS and the existing walletId', async () => {
    const body = { type: 'EVM', userIdentifier: email(), userIdentifierType: 'EMAIL' };
    const first = await create(body);
    expect(first.status).toBe(201);
    const second = await create({ ...body, scheme: 'DKLS', userIdentifier: body.userIdentifier.toUpperCase() });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: 'WALLET_ALREADY_EXISTS', walletId: first.body.id });
    expect(typeof second.body.message).toBe('string');
    const otherType = await create({ ...body, type: 'SOLANA' });
    expect(otherType.status).toBe(201);
  });

  it('creates exactly one wallet under 20 concurrent identical requests', async () => {
    const body = { type: 'SOLANA', userIdentifier: email(), userIdentifierType: 'EMAIL' };
    const responses = await Promise.all(Array.from({ length: 20 }, () => create(body)));
    const created = responses.filter((r) => r.status === 201);
    const conflicts = responses.filter((r) => r.status === 409);
    expect(created).toHaveLength(1);
    expect(conflicts).toHaveLength(19);
    for (const conflict of conflicts) {
      expect(conflict.body).toMatchObject({ code: 'WALLET_ALREADY_EXISTS', walletId: created[0]!.body.id });
    }
    const listed = await app.request('GET', `/v1/wallets?userIdentifier=${encodeURIComponent(body.userIdentifier)}&userIdentifierType=EMAIL`, { key });
    expect(listed.body.data).toHaveLength(1);
  });

  it('replays 20 concurrent POSTs with one Idempotency-Key as one wallet and one response', async () => {
    const body = { type: 'SUI', userIdentifier: email(), userIdentifierType: 'EMAIL' };
    const headers = { 'Idempotency-Key': `idem-${Math.random()}` };
    const before = await countRows();
    const responses = await Promise.all(Array.from({ length: 20 }, () => create(body, { headers })));
    for (const response of responses) {
      expect(response.status).toBe(201);
      expect(response.body).toEqual(responses[0]!.body);
    }
    const after = await countRows();
    expect(after.wallets - before.wallets).toBe(1);
    const replay = await create(body, { headers });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(responses[0]!.body);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(`/v1/wallets/${responses[0]!.body.id}`);
    for (const response of responses) expect(response.headers.get('location')).toBe(`/v1/wallets/${responses[0]!.body.id}`);
    const different = await create({ ...body, type: 'EVM' }, { headers });
    expect(different.status).toBe(409);
    expect(different.body.code).toBe('CONFLICT');
    const badKey = await create(body, { headers: { 'Idempotency-Key': 'has space' } });
    expect(badKey.status).toBe(400);
  });

  it('keeps idempotency keys per project', async () => {
    const other = (await app.createKey()).apiKey;
    const headers = { 'Idempotency-Key': 'shared-key' };
    const a = await create({ type: 'EVM', userIdentifier: email(), userIdentifierType: 'EMAIL' }, { headers });
    const b = await create({ type: 'EVM', userIdentifier: email(), userIdentifierType: 'EMAIL' }, { headers, key: other });
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.id).not.toBe(b.body.id);
  });

  it('filters and pages without losing or repeating a wallet while others are created', async () => {
    const own = (await app.createKey()).apiKey;
    const ids = new Set<string>();
    for (let i = 0; i < 25; i++) {
      const type = ['EVM', 'SOLANA', 'SUI'][i % 3]!;
      const response = await create({ type, userIdentifier: `page-${i}`, userIdentifierType: 'CUSTOM_ID' }, { key: own });
      expect(response.status).toBe(201);
      ids.add(response.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let extra = 0;
    do {
      const query: string = `limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const [page] = await Promise.all([
        app.request('GET', `/v1/wallets?${query}`, { key: own }),
        create({ type: 'STELLAR', userIdentifier: `concurrent-${extra++}`, userIdentifierType: 'CUSTOM_ID' }, { key: own }),
      ]);
      expect(page.status).toBe(200);
      expect(page.body.pagination.limit).toBe(4);
      seen.push(...page.body.data.map((w: { id: string }) => w.id));
      cursor = page.body.pagination.cursor;
      expect(page.body.pagination.hasMore).toBe(cursor !== null);
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of ids) expect(seen).toContain(id);

    const evm = await app.request('GET', '/v1/wallets?type=EVM&limit=100', { key: own });
    expect(evm.body.data).toHaveLength(9);
    expect(evm.body.data.every((w: { type: string }) => w.type === 'EVM')).toBe(true);
    const ready = await app.request('GET', '/v1/wallets?status=ready&type=SUI&limit=100', { key: own });
    expect(ready.body.data).toHaveLength(8);
    const byId = await app.request('GET', '/v1/wallets?userIdentifier=page-3&userIdentifierType=CUSTOM_ID', { key: own });
    expect(byId.body.data).toHaveLength(1);
    const byAddress = await app.request('GET', `/v1/wallets?address=${byId.body.data[0].address}`, { key: own });
    expect(byAddress.body.data.map((w: { id: string }) => w.id)).toEqual([byId.body.data[0].id]);
    for (const bad of ['limit=0', 'limit=101', 'limit=abc', 'type=BTC', 'status=gone', 'cursor=zzz', 'unknown=1']) {
      const response = await app.request('GET', `/v1/wallets?${bad}`, { key: own });
      expect(response.status, bad).toBe(400);
      expect(response.body.code).toBe('INVALID_REQUEST');
    }
  });

  it('updates the identifier with the duplicate rule applied', async () => {
    const a = await create({ type: 'EVM', userIdentifier: email(), userIdentifierType: 'EMAIL' });
    const b = await create({ type: 'EVM', userIdentifier: email(), userIdentifierType: 'EMAIL' });
    const renamed = await app.request('PATCH', `/v1/wallets/${a.body.id}`, {
      key,
      body: { userIdentifier: 'new-id-1', userIdentifierType: 'CUSTOM_ID' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id: a.body.id, userIdentifier: 'new-id-1', userIdentifierType: 'CUSTOM_ID', address: a.body.address });
    const clash = await app.request('PATCH', `/v1/wallets/${b.body.id}`, {
      key,
      body: { userIdentifier: 'new-id-1', userIdentifierType: 'CUSTOM_ID' },
    });
    expect(clash.status).toBe(409);
    expect(clash.body).toMatchObject({ code: 'WALLET_ALREADY_EXISTS', walletId: a.body.id });
    const invalid = await app.request('PATCH', `/v1/wallets/${b.body.id}`, { key, body: { userIdentifierType: 'PHONE' } });
    expect(invalid.status).toBe(400);
    const empty = await app.request('PATCH', `/v1/wallets/${b.body.id}`, { key, body: {} });
    expect(empty.status).toBe(400);
    const typeChange = await app.request('PATCH', `/v1/wallets/${b.body.id}`, { key, body: { type: 'SUI' } });
    expect(typeChange.status).toBe(400);
    const unchanged = await app.request('GET', `/v1/wallets/${b.body.id}`, { key });
    expect(unchanged.body).toEqual(b.body);
  });

  it('hides another project\'s wallet behind the same 404 as a missing one', async () => {
    const mine = await create({ type: 'EVM', userIdentifier: email(), userIdentifierType: 'EMAIL' });
    const stranger = (await app.createKey()).apiKey;
    const foreign = await app.request('GET', `/v1/wallets/${mine.body.id}`, { key: stranger });
    const missing = await app.request('GET', '/v1/wallets/00000000-0000-4000-8000-000000000000', { key: stranger });
    const malformed = await app.request('GET', '/v1/wallets/not-a-uuid', { key: stranger });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(malformed.body).toEqual(missing.body);
    expect(foreign.body).toEqual({ code: 'NOT_FOUND', message: 'Wallet not found' });
    const patch = await app.request('PATCH', `/v1/wallets/${mine.body.id}`, { key: stranger, body: { userIdentifier: 'x' } });
    expect(patch.status).toBe(404);
    const list = await app.request('GET', `/v1/wallets?address=${mine.body.address}`, { key: stranger });
    expect(list.body.data).toEqual([]);
  });

  it('answers bad input on every field with 400 and writes nothing', async () => {
    const good = { type: 'EVM', userIdentifier: 'someone@example.com', userIdentifierType: 'EMAIL' };
    const cases: unknown[] = [
      {},
      { ...good, type: 'BTC' },
      { ...good, type: 1 },
      { ...good, type: null },
      { ...good, userIdentifier: 42 },
      { ...good, userIdentifier: '' },
      { ...good, userIdentifier: 'x'.repeat(257) },
      { ...good, userIdentifier: 'x'.repeat(200_000) },
      { ...good, userIdentifier: 'not-an-email' },
      { ...good, userIdentifierType: 'PHONE', userIdentifier: '555-1234' },
      { ...good, userIdentifierType: 'TELEGRAM', userIdentifier: 'abc' },
      { ...good, userIdentifierType: 'SOCIAL' },
      { ...good, userIdentifierType: ['EMAIL'] },
      { type: 'EVM', userIdentifier: 'a@b.co' },
      { type: 'EVM', userIdentifierType: 'EMAIL' },
      { ...good, scheme: 'ED25519' },
      { ...good, scheme: 'RSA' },
      { ...good, cosmosPrefix: 'cosmos' },
      { ...good, extra: true },
      { ...good, id: '00000000-0000-4000-8000-000000000000' },
      [good],
      'wallet',
      null,
    ];
    const before = await countRows();
    for (const body of cases) {
      const response = await app.request('POST', '/v1/wallets', { key, rawBody: JSON.stringify(body) });
      expect(response.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.body.code).toBe('INVALID_REQUEST');
      expect(typeof response.body.message).toBe('string');
    }
    const malformed = await app.request('POST', '/v1/wallets', { key, rawBody: '{"type": "EVM",' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('INVALID_REQUEST');
    const noContentType = await app.request('POST', '/v1/wallets', { key, rawBody: JSON.stringify(good), headers: { 'content-type': 'text/plain' } });
    expect(noContentType.status).toBe(400);
    const huge = await app.request('POST', '/v1/wallets', { key, rawBody: JSON.stringify({ ...good, userIdentifier: 'x'.repeat(1_100_000) }) });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await countRows()).toEqual(before);
  });

  it('appends an audit row per creation that holds no secret', async () => {
    const response = await create({ type: 'EVM', userIdentifier: email(), userIdentifierType: 'EMAIL' });
    const rows = await app.database.prisma.auditLog.findMany({ where: { walletId: response.body.id } });
    expect(rows.map((r) => r.action)).toEqual(['wallet.create']);
    const row = rows[0]!;
    expect(row.requestId).toBe(response.headers.get('x-request-id'));
    expect(row.apiKeyId).toMatch(/^[0-9a-f-]{36}$/);
    const text = JSON.stringify({ ...row, id: String(row.id) });
    for (const secret of app.secrets()) expect(text).not.toContain(secret);
    const shares = await app.database.prisma.keyShare.findMany({ where: { walletId: response.body.id } });
    expect(shares.map((s) => s.role).sort()).toEqual(['service', 'user']);
    expect(new Set(shares.map((s) => s.kekId)).size).toBe(2);
    for (const share of shares) expect(text).not.toContain(Buffer.from(share.ciphertext).toString('hex'));
  });

  it('normalizes emails and validates phone numbers', async () => {
    const mixed = await create({ type: 'EVM', userIdentifier: 'Mixed.Case@Example.COM', userIdentifierType: 'EMAIL' });
    expect(mixed.body.userIdentifier).toBe('mixed.case@example.com');
    const phone = await create({ type: 'EVM', userIdentifier: '+14155550100', userIdentifierType: 'PHONE' });
    expect(phone.status).toBe(201);
  });
});
