/**
 * npm run bench:search: latency of the console search (the domain use case over the real store,
 * as GraphQL and tRPC run it) on BENCH_SEARCH_RECORDS transaction records (default 1,000,000)
 * with their wallets, users, approval cases, events and request log rows (search-seed.ts), in a
 * scratch database on the PostgreSQL server of BENCH_DATABASE_URL (else TEST_DATABASE_URL, else
 * the local server). BENCH_SEARCH_DB=pglite runs it on the embedded PGlite instead (file-backed,
 * in a worker thread, as the service runs it; default 100,000 records there).
 * Per query kind: BENCH_SEARCH_SAMPLES (default 300) searches one after another, p50/p99/max in
 * ms, and how many found what they looked for. Each kind's statements are EXPLAINed first: the
 * run fails when one scans a whole table instead of an index. Target: p99 <= 50 ms.
 * Not a test: figures depend on the machine.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createScratchDatabase, createStores, openDatabase, type Database } from '@wallet/db';
import { createSearchService, type SearchKind } from '@wallet/domain';
import { FIRST_NAMES, PARTNERS, seed, sizes } from './search-seed.ts';

const PGLITE = process.env.BENCH_SEARCH_DB === 'pglite';
const RECORDS = Number(process.env.BENCH_SEARCH_RECORDS ?? (PGLITE ? 100_000 : 1_000_000));
const SAMPLES = Number(process.env.BENCH_SEARCH_SAMPLES ?? 300);
const SERVER = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
/** Small tables a plan may read whole (a partner's projects). */
const SMALL_TABLES = new Set(['projects', 'partners']);

const dataDir = PGLITE ? mkdtempSync(path.join(tmpdir(), 'wallet-bench-search-')) : undefined;
let drop: (() => Promise<void>) | undefined;

async function openBenchDatabase(): Promise<Database> {
  if (dataDir) return openDatabase({ dataDir: path.join(dataDir, 'db') });
  const scratch = await createScratchDatabase(SERVER, 'bench_search');
  drop = scratch.drop;
  return openDatabase({ databaseUrl: scratch.url });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const pick = (count: number) => Array.from({ length: SAMPLES }, () => Math.floor(Math.random() * count));
const partnerOf = (row: { partner_id: string }) => row.partner_id;
const flip = (s: string) => [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

interface Case {
  name: string;
  expect: SearchKind;
  queries: Array<{ partnerId: string; query: string }>;
}

/** The queries of each kind, from sampled rows (found by their seeded ids). */
async function cases(database: Database): Promise<Case[]> {
  const n = sizes(RECORDS);
  const ids = (prefix: string, count: number) => pick(count).map((i) => `${prefix}${i}`);
  /** Wallet i has type i % 5 (EVM, Solana, Cosmos, Stellar, Sui); `type` undefined: any. */
  const walletRows = (type?: number) =>
    database.query<{ id: string; address: string; user_identifier: string; partner_id: string }>(
      `SELECT w.id, w.address, w.user_identifier, p.partner_id FROM wallets w JOIN projects p ON p.id = w.project_id
        WHERE w.id = ANY($1::uuid[])`,
      [pick(Math.floor(n.wallets / 5)).map((k) => md5Uuid(`w${type === undefined ? Math.floor(Math.random() * n.wallets) : 5 * k + type}`))],
    );
  const records = await database.query<{ id: string; hash: string; partner_id: string }>(
    `SELECT id, hash, partner_id FROM transaction_records WHERE id = ANY($1::uuid[])`,
    [ids('t', RECORDS).map(md5Uuid)],
  );
  const byId = (table: string, column: string, values: string[]) =>
    database.query<{ id: string; partner_id: string }>(
      `SELECT t.${column}::text AS id, p.partner_id FROM ${table} t JOIN projects p ON p.id = t.project_id WHERE t.${column}::text = ANY($1::text[])`,
      [values],
    );
  const evm = await walletRows(0);
  const solana = await walletRows(1);
  const cosmos = await walletRows(2);
  const stellar = await walletRows(3);
  const sui = await walletRows(4);
  const wallets = await walletRows();
  const approvalCases = await byId('approval_cases', 'id', ids('c', n.cases).map(md5Uuid));
  const events = await byId('events', 'id', ids('evt_bench', n.events));
  const requests = await byId('request_log', 'request_id', ids('r', n.requests).map(md5Uuid));
  const as = <T extends { partner_id: string }>(rows: T[], query: (row: T) => string) => rows.map((row) => ({ partnerId: partnerOf(row), query: query(row) }));
  return [
    { name: 'transaction id', expect: 'TRANSACTION', queries: as(records, (r) => r.id) },
    { name: 'transaction hash (upper-case)', expect: 'TRANSACTION', queries: as(records, (r) => `0x${r.hash.slice(2).toUpperCase()}`) },
    { name: 'wallet id', expect: 'WALLET', queries: as(wallets, (w) => w.id) },
    { name: 'EVM address (other case)', expect: 'WALLET', queries: as(evm, (w) => `0x${flip(w.address.slice(2))}`) },
    { name: 'Solana address (exact)', expect: 'WALLET', queries: as(solana, (w) => w.address) },
    { name: 'Cosmos address (upper-case)', expect: 'WALLET', queries: as(cosmos, (w) => w.address.toUpperCase()) },
    { name: 'Stellar address (lower-case)', expect: 'WALLET', queries: as(stellar, (w) => w.address.toLowerCase()) },
    { name: 'Sui address (upper-case)', expect: 'WALLET', queries: as(sui, (w) => `0x${w.address.slice(2).toUpperCase()}`) },
    { name: 'user prefix, 3 letters', expect: 'USER', queries: as(wallets, (w) => w.user_identifier.slice(0, 3).toUpperCase()) },
    { name: 'user prefix, name + number', expect: 'USER', queries: as(wallets, (w) => w.user_identifier.split('@')[0]!) },
    { name: 'approval case / review id', expect: 'APPROVAL_CASE', queries: as(approvalCases, (c) => c.id) },
    { name: 'webhook event id', expect: 'WEBHOOK_EVENT', queries: as(events, (e) => e.id) },
    { name: 'request id', expect: 'REQUEST', queries: as(requests, (r) => r.id) },
    { name: "another partner's EVM address", expect: 'WALLET', queries: as(evm, (w) => w.address).map((q) => ({ ...q, partnerId: otherPartner(q.partnerId) })) },
  ];
}

const md5Uuid = (text: string) => {
  const hex = createHash('md5').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};
const partnerIds = Array.from({ length: PARTNERS }, (_, p) => md5Uuid(`p${p}`));
const otherPartner = (partnerId: string) => partnerIds[(partnerIds.indexOf(partnerId) + 1) % PARTNERS]!;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(nodes)];

/** Runs one search of the case with the statements captured, and EXPLAINs each: the indexes used, or the tables read whole. */
async function explain(database: Database, example: { partnerId: string; query: string }) {
  const captured: Array<{ text: string; values: unknown[] | undefined }> = [];
  const capturing: Database = { ...database, query: (text, values) => (captured.push({ text, values }), database.query(text, values)) };
  await createSearchService({ store: createStores(capturing).search }).search({ partnerId: example.partnerId }, { query: example.query });
  const indexes = new Set<string>();
  const scanned = new Set<string>();
  for (const { text, values } of captured) {
    const [row] = await database.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> | string }>(`EXPLAIN (FORMAT JSON) ${text}`, values);
    const plan = row!['QUERY PLAN'];
    for (const node of nodes((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan)) {
      if (node['Index Name']) indexes.add(node['Index Name']);
      if (node['Node Type'] === 'Seq Scan' && !SMALL_TABLES.has(node['Relation Name']!)) scanned.add(node['Relation Name']!);
    }
  }
  return { indexes: [...indexes].sort(), scanned: [...scanned].sort() };
}

async function main() {
  const database = await openBenchDatabase();
  try {
    const started = Date.now();
    await seed(database, RECORDS);
    const n = sizes(RECORDS);
    console.error(`seeded ${RECORDS} records, ${n.wallets} wallets, ${Math.ceil(n.wallets / 4)} users, ${n.cases} cases, ${n.events} events, ${n.requests} request log rows in ${Math.round((Date.now() - started) / 1000)} s`);
    const search = createSearchService({ store: createStores(database).search });
    const rows = [];
    let failed = false;
    for (const c of await cases(database)) {
      const plan = await explain(database, c.queries[0]!);
      if (plan.scanned.length > 0) failed = true;
      // A few searches first, unmeasured: connections and caches warm.
      for (const q of c.queries.slice(0, 10)) await search.search({ partnerId: q.partnerId }, { query: q.query });
      const times: number[] = [];
      let found = 0;
      for (const q of c.queries) {
        const t0 = performance.now();
        const results = await search.search({ partnerId: q.partnerId }, { query: q.query });
        times.push(performance.now() - t0);
        if (results.some((r) => r.kind === c.expect || (c.expect === 'APPROVAL_CASE' && r.kind === 'REVIEW'))) found++;
      }
      times.sort((a, b) => a - b);
      rows.push({
        query: c.name,
        searches: times.length,
        found,
        p50_ms: +percentile(times, 50).toFixed(2),
        p99_ms: +percentile(times, 99).toFixed(2),
        max_ms: +times.at(-1)!.toFixed(2),
        indexes: plan.indexes.join(' '),
        ...(plan.scanned.length > 0 ? { SEQ_SCAN: plan.scanned.join(' ') } : {}),
      });
      console.error(JSON.stringify(rows.at(-1)));
    }
    console.log(JSON.stringify({ database: PGLITE ? 'pglite' : 'postgresql', records: RECORDS, names: FIRST_NAMES.length, rows }, null, 2));
    if (failed) {
      console.error('a lookup reads a whole table (SEQ_SCAN above)');
      process.exitCode = 1;
    }
  } finally {
    await database.close();
  }
}

try {
  await main();
} finally {
  await drop?.().catch(() => undefined);
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}
