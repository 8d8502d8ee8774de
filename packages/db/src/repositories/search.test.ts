import { randomUUID } from 'node:crypto';
import { createSearchService, type SearchResult } from '@wallet/domain';
import { transactionRecordFixture } from '@wallet/domain/transactions/testing.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createSearchStore } from './search.ts';
import { createTransactionStore } from './transactions.ts';

const evmAddress = '0x52908400098527886E0F7030069857D2E4169EE7';
const suiAddress = `0x${'5e'.repeat(32)}`;
const cosmosAddress = 'cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu';
const stellarAddress = 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ';
const solanaAddress = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const otherEvmAddress = '0x8617E340B3D01FA5F11F306F4090FD50E238070D';

describe.each(testDatabaseKinds)('search across a partner (%s)', (kind) => {
  let database: Database;
  let search: (partnerId: string, query: string) => Promise<SearchResult[]>;
  const partner = randomUUID();
  const other = randomUUID();
  const project = randomUUID();
  const otherProject = randomUUID();
  const ids = { evm: randomUUID(), sui: randomUUID(), cosmos: randomUUID(), stellar: randomUUID(), solana: randomUUID(), foreign: randomUUID() };
  const record = transactionRecordFixture({ projectId: project, partnerId: partner, walletId: ids.evm, status: 'confirmed' });
  const foreignRecord = transactionRecordFixture({ projectId: otherProject, partnerId: other, walletId: ids.foreign });
  const caseId = randomUUID();
  const reviewId = randomUUID();
  const requestId = randomUUID();
  const foreignRequestId = randomUUID();
  const eventId = 'evt_searchTestEvent-1';
  const recordEventId = 'evt_searchTestEvent-2';

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    const { prisma } = database;
    const service = createSearchService({ store: createSearchStore(database) });
    search = (partnerId, query) => service.search({ partnerId }, { query });
    await prisma.partner.createMany({ data: [{ id: partner, name: `p-${partner}` }, { id: other, name: `p-${other}` }] });
    await prisma.project.createMany({ data: [{ id: project, partnerId: partner, name: 'main' }, { id: otherProject, partnerId: other, name: 'main' }] });
    const wallet = (id: string, projectId: string, type: string, address: string, userIdentifier: string) => ({
      id, projectId, type, scheme: type === 'EVM' || type === 'COSMOS' ? 'DKLS' : 'ED25519', address, publicKey: address, status: 'ready', userIdentifier, userIdentifierType: 'EMAIL',
    });
    await prisma.wallet.createMany({
      data: [
        wallet(ids.evm, project, 'EVM', evmAddress, 'Alice@example.com'),
        wallet(ids.sui, project, 'SUI', suiAddress, 'Alice@example.com'),
        wallet(ids.cosmos, project, 'COSMOS', cosmosAddress, 'bob@example.com'),
        wallet(ids.stellar, project, 'STELLAR', stellarAddress, 'carol@example.com'),
        wallet(ids.solana, project, 'SOLANA', solanaAddress, 'dave_1%@example.com'),
        wallet(ids.foreign, otherProject, 'EVM', otherEvmAddress, 'alicia@other.example'),
      ],
    });
    await prisma.user.createMany({
      data: [
        { id: randomUUID(), projectId: project, identifier: 'alina@example.com', identifierType: 'EMAIL' },
        { id: randomUUID(), projectId: otherProject, identifier: 'alistair@other.example', identifierType: 'EMAIL' },
      ],
    });
    const transactions = createTransactionStore(database);
    await transactions.create(record, []);
    await transactions.create(foreignRecord, []);
    const approvalCase = (id: string, partnerReview: boolean) => ({
      id, projectId: project, environment: 'production', walletId: ids.evm, apiKeyId: randomUUID(), caseKey: `k-${id}`, requestHash: 'h', requirements: [],
      scopeId: partnerReview ? null : 'scope', bindingRevision: partnerReview ? null : 1, stages: [], status: 'pending', partnerReview, request: {},
      expiresAt: new Date(Date.now() + 60_000), createdAt: new Date(),
    });
    await prisma.approvalCase.createMany({ data: [approvalCase(caseId, false), approvalCase(reviewId, true)] });
    await prisma.event.createMany({
      data: [
        { id: eventId, projectId: project, type: 'test.ping', data: {} },
        { id: recordEventId, projectId: project, type: 'send.confirmed', data: {}, transactionId: record.id },
      ],
    });
    for (const [id, projectId] of [[requestId, project], [foreignRequestId, otherProject]]) {
      await database.query(
        `INSERT INTO request_log (project_id, request_id, method, route, status, latency_ms, at) VALUES ($1, $2, 'POST', '/v1/wallets', 201, 3.5, now())`,
        [projectId, id],
      );
    }
  });
  afterAll(async () => {
    await database?.close();
  });

  it('finds a wallet by its EVM address in any case, and never another partner\'s', async () => {
    const expected = { kind: 'WALLET', id: ids.evm, label: `${evmAddress} · EVM · Alice@example.com`, href: `/wallets/${ids.evm}` };
    expect(await search(partner, evmAddress.toLowerCase())).toEqual([expected]);
    expect(await search(partner, evmAddress.toUpperCase().replace('0X', '0x'))).toEqual([expected]);
    expect(await search(partner, otherEvmAddress)).toEqual([]);
    expect((await search(other, otherEvmAddress)).map((r) => r.id)).toEqual([ids.foreign]);
  });

  it('finds Sui, Cosmos and Stellar addresses case-insensitively and Solana only exactly', async () => {
    expect((await search(partner, suiAddress.toUpperCase().replace('0X', '0x'))).map((r) => r.id)).toEqual([ids.sui]);
    expect((await search(partner, cosmosAddress.toUpperCase())).map((r) => r.id)).toEqual([ids.cosmos]);
    expect((await search(partner, stellarAddress.toLowerCase())).map((r) => r.id)).toEqual([ids.stellar]);
    expect((await search(partner, solanaAddress)).map((r) => r.id)).toEqual([ids.solana]);
    expect(await search(partner, solanaAddress.toLowerCase())).toEqual([]);
  });

  it('finds a record by id and by hash (any case), and not another partner\'s', async () => {
    const expected = { kind: 'TRANSACTION', id: record.id, label: `${record.hash} · EVM · confirmed`, href: `/transactions/${record.id}` };
    expect(await search(partner, record.id.toUpperCase())).toEqual([expected]);
    expect(await search(partner, record.hash!.toUpperCase().replace('0X', '0x'))).toEqual([expected]);
    expect(await search(partner, foreignRecord.id)).toEqual([]);
    expect(await search(partner, foreignRecord.hash!)).toEqual([]);
  });

  it('finds users by a case-insensitive prefix of their identifier, among wallets and signed-up users, once each', async () => {
    const users = await search(partner, 'ALI');
    expect(users).toEqual([
      { kind: 'USER', id: `${project}:Alice@example.com`, label: 'Alice@example.com', href: `/transactions?project=${project}&user=Alice%40example.com` },
      { kind: 'USER', id: `${project}:alina@example.com`, label: 'alina@example.com', href: `/transactions?project=${project}&user=alina%40example.com` },
    ]);
    expect((await search(other, 'ali')).map((r) => r.label)).toEqual(['alicia@other.example', 'alistair@other.example']);
    // LIKE's wildcards in the query are plain characters.
    expect((await search(partner, 'dave_1%')).map((r) => r.label)).toEqual(['dave_1%@example.com']);
    expect(await search(partner, 'dave%')).toEqual([]);
    expect(await search(partner, '_ave')).toEqual([]);
  });

  it('finds approval cases and partner reviews by id, linking to the case detail', async () => {
    expect(await search(partner, caseId)).toEqual([
      { kind: 'APPROVAL_CASE', id: caseId, label: `Approval case ${caseId} · production · pending`, href: `/cases?project=${project}&env=production&case=${caseId}` },
    ]);
    expect(await search(partner, reviewId)).toEqual([
      { kind: 'REVIEW', id: reviewId, label: `Partner review ${reviewId} · production · pending`, href: `/cases?project=${project}&env=production&case=${reviewId}` },
    ]);
    expect(await search(other, caseId)).toEqual([]);
  });

  it('finds webhook events and requests by id, of the partner only', async () => {
    expect(await search(partner, eventId)).toEqual([
      { kind: 'WEBHOOK_EVENT', id: eventId, label: `test.ping · ${eventId}`, href: `/webhooks?project=${project}` },
    ]);
    // An event about a record opens the record, whose page lists the event's deliveries.
    expect(await search(partner, recordEventId)).toEqual([
      { kind: 'WEBHOOK_EVENT', id: recordEventId, label: `send.confirmed · ${recordEventId}`, href: `/transactions/${record.id}` },
    ]);
    expect(await search(other, eventId)).toEqual([]);
    expect(await search(partner, eventId.toUpperCase())).toEqual([]);
    expect(await search(partner, requestId)).toEqual([
      { kind: 'REQUEST', id: requestId, label: `POST /v1/wallets · 201 · ${requestId}`, href: `/request-log?requestId=${requestId}` },
    ]);
    expect(await search(partner, foreignRequestId)).toEqual([]);
  });

  it('groups by kind, then label', async () => {
    // One query finding two kinds: 0x + 64 hex is a transaction hash and a Sui address.
    const sharedHash = suiAddress;
    const suiRecord = transactionRecordFixture({ projectId: project, partnerId: partner, walletId: ids.sui, hash: sharedHash });
    await createTransactionStore(database).create(suiRecord, []);
    expect((await search(partner, sharedHash)).map((r) => [r.kind, r.id])).toEqual([
      ['TRANSACTION', suiRecord.id],
      ['WALLET', ids.sui],
    ]);
    const prefixed = await search(partner, 'a');
    expect(prefixed.map((r) => r.label)).toEqual(['Alice@example.com', 'alina@example.com']);
  });

  it('answers a blank query with nothing and refuses an over-long one', async () => {
    expect(await search(partner, '   ')).toEqual([]);
    await expect(search(partner, 'a'.repeat(201))).rejects.toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
  });
});
