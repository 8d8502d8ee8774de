/**
 * Upgrading a database made by the previous release (9f4a691, before the signer process; see
 * previous-release/README.md): today's service starts on it as `npm start` does, hands the old
 * DATA_DIR/keks.json to its signer, and `npm run custody -- convert`, SIGKILLed at a step boundary
 * of one wallet and then at another, ends as an uninterrupted run does once rerun: every Ed25519
 * wallet in FROST shares at epoch 1, its XOR halves gone, every wallet signing over REST with the
 * address and public key the previous release gave it; a further run changes nothing.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { PGlite } from '@electric-sql/pglite';
import { createScratchDatabase, openDatabase, testDatabaseKinds, type DatabaseKind } from '@wallet/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { restorePGliteSnapshot } from '../../../../packages/db/src/pglite-template.ts';
import { loadConfig, repoRoot } from '../config.ts';
import { checkedServiceCalls } from '../testing/response-contract.ts';
import { processAlive } from '../local/process-alive.ts';
import { exited, localServiceEnv, spawnService, suiteProcesses, type ServiceProcess } from '../testing/service-process.ts';
import { signingMatrix } from '../testing/signing-matrix.ts';

const run = promisify(execFile);
const fixtureDir = path.join(import.meta.dirname, 'previous-release');
interface FixtureWallet {
  type: 'EVM' | 'COSMOS' | 'SOLANA' | 'STELLAR' | 'SUI';
  id: string;
  address: string;
  publicKey: string;
}
const fixture = JSON.parse(readFileSync(path.join(fixtureDir, 'wallets.json'), 'utf8')) as { apiKey: string; wallets: FixtureWallet[] };
const ed25519Ids = fixture.wallets.filter((w) => ['SOLANA', 'STELLAR', 'SUI'].includes(w.type)).map((w) => w.id);
const secp256k1Ids = fixture.wallets.filter((w) => ['EVM', 'COSMOS'].includes(w.type)).map((w) => w.id);
// The conversion takes the wallets in id order: the kills below hit the second and then the third.
const [firstId, secondId, thirdId] = [...ed25519Ids].sort();

/** The dump as plain SQL both databases take: without psql's meta-commands (`\restrict`, `\unrestrict`). */
const dumpSql = readFileSync(path.join(fixtureDir, 'dump.sql'), 'utf8')
  .split('\n')
  .filter((line) => !line.startsWith('\\'))
  .join('\n');

const { children, cleanups } = suiteProcesses();

interface ShareRow {
  wallet_id: string;
  role: string;
  epoch: number;
  kek_id: string;
  sealed: string;
}

describe.each(testDatabaseKinds)('a database of the previous release, converted with kills in the middle (%s)', (kind: DatabaseKind) => {
  let dataDir = '';
  let databaseUrl = '';
  let env: Record<string, string>;
  let service: ServiceProcess | undefined;
  const call = checkedServiceCalls(() => fixture.apiKey);

  /** Today's service on this data directory as `npm start` runs it (its signer supervised beside it). */
  async function start(extra: Record<string, string> = {}) {
    // A signer left by a killed service exits with it; the next one takes its store over.
    const lock = path.join(dataDir, 'signer', 'signer.lock');
    for (let i = 0; existsSync(lock) && processAlive(Number(readFileSync(lock, 'utf8'))) && i < 100; i++) await new Promise((r) => setTimeout(r, 50));
    service = await spawnService({ ...env, ...extra }, children);
  }
  async function stop() {
    if (!service) return;
    service.child.kill('SIGTERM');
    await exited(service.child);
    service = undefined;
  }

  /** `npm run custody -- convert` as its own process; its exit status, or the signal that ended it. */
  const convert = (extra: Record<string, string> = {}) =>
    run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/custody.ts', 'convert'], { cwd: repoRoot, env: { ...env, ...extra } }).then(
      ({ stdout }) => ({ exit: 0 as number | string, counts: JSON.parse(stdout.trim()) as Record<string, unknown> }),
      (error: { code: number | null; signal: string | null }) => ({ exit: error.signal ?? error.code ?? -1, counts: null }),
    );

  /** `npm run custody -- verify-log`: its exit status and report. */
  const verifyLog = () =>
    run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/custody.ts', 'verify-log'], { cwd: repoRoot, env }).then(
      ({ stdout }) => ({ exit: 0, report: JSON.parse(stdout.trim()) as Record<string, unknown> }),
      (error: { code: number; stdout: string }) => ({ exit: error.code, report: JSON.parse(error.stdout.trim() || '{}') as Record<string, unknown> }),
    );

  /**
   * A convert run whose working process SIGKILLs itself at `crashAt`. On PostgreSQL the CLI does the
   * work; on PGlite the CLI asks the running service (the embedded database is one process's), so
   * the service is started with the hook and is what dies.
   */
  async function killedConvert(crashAt: string) {
    if (kind === 'postgres') {
      expect(await convert({ CUSTODY_CRASH_AT: crashAt })).toEqual({ exit: 'SIGKILL', counts: null });
      return;
    }
    await stop();
    await start({ CUSTODY_CRASH_AT: crashAt });
    const outcome = await convert();
    expect(outcome.exit).toBe(1); // the service it asked died mid-request
    expect(await exited(service!.child)).toBe('SIGKILL');
    service = undefined;
  }

  /** Reads the database itself (PGlite: opened here, once the service that holds it has stopped). */
  async function withDatabase<R>(use: (read: <T>(sql: string) => Promise<T[]>) => Promise<R>): Promise<R> {
    if (kind === 'postgres') {
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      return use(async <T,>(sql: string) => (await client.query(sql)).rows as T[]).finally(() => client.end());
    }
    await stop();
    const database = await openDatabase({ dataDir: path.join(dataDir, 'db'), migrate: false, worker: false });
    return use(<T,>(sql: string) => database.query<T>(sql)).finally(() => database.close());
  }
  const inspect = () =>
    withDatabase(async (read) => ({
      shares: await read<ShareRow>("SELECT wallet_id, role, epoch, kek_id, encode(iv, 'hex') || encode(ciphertext, 'hex') AS sealed FROM key_shares ORDER BY wallet_id, role, epoch"),
      audits: await read<{ wallet_id: string; n: number }>("SELECT wallet_id, count(*)::int AS n FROM audit_log WHERE action = 'wallet.custody.convert' GROUP BY wallet_id ORDER BY wallet_id"),
      wallets: await read<{ id: string; type: string; address: string; public_key: string }>('SELECT id, type, address, public_key FROM wallets ORDER BY id'),
    }));
  const rolesOf = (rows: ShareRow[], walletId: string) => rows.filter((r) => r.wallet_id === walletId).map((r) => `${r.role}@${r.epoch}`);
  const FROST = ['frost-api@1', 'frost-signer@1', 'recovery-signer@1'];
  const HALVES = ['service@0', 'user@0'];
  /** The share epochs the signer has committed (its own store, which the API cannot write). */
  const signerEpochs = () => {
    const file = path.join(dataDir, 'signer', 'epochs.jsonl');
    const epochs: Record<string, number> = {};
    if (!existsSync(file)) return epochs;
    for (const line of readFileSync(file, 'utf8').split('\n').filter((l) => l.trim())) {
      const { walletId, epoch } = JSON.parse(line) as { walletId: string; epoch: number };
      epochs[walletId] = Math.max(epochs[walletId] ?? 0, epoch);
    }
    return epochs;
  };

  /** Every fixture wallet signs a message over REST; each chain's SDK (and @noble/curves strict, node:crypto for Ed25519) verifies it under the fixture's address. */
  async function signsWithFixtureAddresses() {
    for (const wallet of fixture.wallets) {
      const cell = signingMatrix.find((c) => c.type === wallet.type && c.route === 'sign-message')!;
      const body = await cell.body(wallet);
      const signed = await call(service!.url, 'POST', `/v1/wallets/${wallet.id}/sign-message`, body);
      expect(signed.status, wallet.type).toBe(200);
      expect(await cell.verify(wallet, signed.body, body), wallet.type).toBe(true);
    }
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), `wallet-previous-${kind}-`));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    // Where the previous release kept its generated KEKs in local mode (mode 0600, as it wrote them).
    copyFileSync(path.join(fixtureDir, 'keks.json'), path.join(dataDir, 'keks.json'));
    chmodSync(path.join(dataDir, 'keks.json'), 0o600);
    if (kind === 'postgres') {
      const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 'prevrelease');
      cleanups.push(scratch.drop);
      databaseUrl = scratch.url;
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(dumpSql).finally(() => client.end());
    } else {
      // The dump restored into a new PGlite (cached as a data directory snapshot keyed by the dump).
      mkdirSync(path.join(dataDir, 'db'));
      const key = createHash('sha256').update(dumpSql).digest('hex');
      await restorePGliteSnapshot('previous-release', key, async (db: PGlite) => void (await db.exec(dumpSql)), path.join(dataDir, 'db'));
    }
    env = localServiceEnv(dataDir, { DATABASE_URL: databaseUrl });
    delete env.INIT_CWD;
  }, 60_000);
  afterAll(async () => {
    await stop();
  });

  let halvesBefore: Omit<ShareRow, 'epoch'>[] = [];

  it("starts on it, hands the old KEK file to its signer, and signs with every wallet's old halves", async () => {
    // As the previous release left it: its last migration, no share epochs yet, two XOR halves per wallet.
    const before = await withDatabase(async (read) => ({
      migration: await read('SELECT migration_name FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1'),
      epochColumn: await read("SELECT 1 FROM information_schema.columns WHERE table_name = 'key_shares' AND column_name = 'epoch'"),
      shares: await read<Omit<ShareRow, 'epoch'>>("SELECT wallet_id, role, kek_id, encode(iv, 'hex') || encode(ciphertext, 'hex') AS sealed FROM key_shares ORDER BY wallet_id, role"),
    }));
    expect(before.migration).toEqual([{ migration_name: '20261127223000_solana_attempts' }]);
    expect(before.epochColumn).toEqual([]);
    expect(before.shares.map((r) => `${r.wallet_id} ${r.role}`)).toEqual([...ed25519Ids, ...secp256k1Ids].sort().flatMap((id) => [`${id} service`, `${id} user`]));
    halvesBefore = before.shares;

    // On PGlite this service is the one the first conversion below runs in (the CLI asks it), so it carries that run's kill.
    await start(kind === 'pglite' ? { CUSTODY_CRASH_AT: 'before-write:2' } : {});
    expect(existsSync(path.join(dataDir, 'keks.json'))).toBe(false);
    expect(readFileSync(path.join(dataDir, 'signer', 'keks.json'), 'utf8')).toBe(readFileSync(path.join(fixtureDir, 'keks.json'), 'utf8'));
    await signsWithFixtureAddresses();
  }, 90_000);

  it('convert killed before the second wallet is written, then after the next write, ends as an uninterrupted run; a further run is a no-op', async () => {
    // Killed once the signer has split the second wallet's key and its test signature verified, before the database write.
    if (kind === 'pglite') {
      expect((await convert()).exit).toBe(1); // the service it asked died mid-request
      expect(await exited(service!.child)).toBe('SIGKILL');
      service = undefined;
    } else {
      await killedConvert('before-write:2');
    }
    let rows = (await inspect()).shares;
    expect(rolesOf(rows, firstId!)).toEqual(FROST);
    expect(rolesOf(rows, secondId!)).toEqual(HALVES);
    expect(rolesOf(rows, thirdId!)).toEqual(HALVES);
    expect(signerEpochs()).toEqual({ [firstId!]: 1 });

    // Killed right after the next wallet's write (the first is skipped, FROST already), before the signer commits its epoch.
    await killedConvert('after-write:1');
    rows = (await inspect()).shares;
    expect(rolesOf(rows, secondId!)).toEqual(FROST);
    expect(rolesOf(rows, thirdId!)).toEqual(HALVES);
    expect(signerEpochs()).toEqual({ [firstId!]: 1 });

    // The rerun finishes; the one after it finds nothing to do.
    if (!service) await start();
    expect(await convert()).toEqual({ exit: 0, counts: { command: 'convert', wallets: 3, done: 1, skipped: 2, failed: 0, failures: [] } });
    expect(await convert()).toEqual({ exit: 0, counts: { command: 'convert', wallets: 3, done: 0, skipped: 3, failed: 0, failures: [] } });
    await signsWithFixtureAddresses();

    // What an uninterrupted run leaves: FROST shares at epoch 1, committed in the signer; no XOR row of an Ed25519
    // wallet; the secp256k1 halves as they were; one conversion (one write, with its audit row in the same
    // transaction) per wallet, so neither the kills nor the no-op run wrote twice; addresses and keys unchanged.
    const converted = await inspect();
    for (const id of ed25519Ids) expect(rolesOf(converted.shares, id)).toEqual(FROST);
    expect(converted.shares.filter((r) => ed25519Ids.includes(r.wallet_id) && ['user', 'service'].includes(r.role))).toEqual([]);
    expect(converted.shares.filter((r) => secp256k1Ids.includes(r.wallet_id))).toEqual(halvesBefore.filter((r) => secp256k1Ids.includes(r.wallet_id)).map((r) => ({ ...r, epoch: 0 })));
    expect(signerEpochs()).toEqual(Object.fromEntries(ed25519Ids.map((id) => [id, 1])));
    expect(converted.audits).toEqual([...ed25519Ids].sort().map((id) => ({ wallet_id: id, n: 1 })));
    expect(converted.wallets).toEqual([...fixture.wallets].sort((a, b) => (a.id < b.id ? -1 : 1)).map((w) => ({ id: w.id, type: w.type, address: w.address, public_key: w.publicKey })));
    // Every signature the signer logged (the conversions' test signatures of the killed runs too) pairs with an audit row.
    if (!service) await start();
    expect(await verifyLog()).toMatchObject({ exit: 0, report: { ok: true, chain: { ok: true }, missingInAudit: { count: 0 }, missingInLog: { count: 0 } } });
  }, 150_000);
});

describe('CUSTODY_CRASH_AT', () => {
  const production = { APP_ENV: 'production', DATABASE_URL: 'postgresql://db/x', API_KEKS: 'a1:x', SIGNER_URL: 'https://signer:7000', SIGNER_CLIENT_TLS_CA: 'ca.pem', SIGNER_CLIENT_TLS_CERT: 'api.pem', SIGNER_CLIENT_TLS_KEY: 'api-key.pem', RECOVERY_PUBLIC_KEY_FILE: 'recovery.pem' };
  it('is a test switch: read as <step>:<n> outside production, refused in production', () => {
    expect(loadConfig({ APP_ENV: 'local', CUSTODY_CRASH_AT: 'after-write:2' }).custodyCrashAt).toEqual({ step: 'after-write', n: 2 });
    expect(loadConfig({ APP_ENV: 'local', CUSTODY_CRASH_AT: 'dkls-final:1' }).custodyCrashAt).toEqual({ step: 'dkls-final', n: 1 });
    expect(() => loadConfig({ APP_ENV: 'local', CUSTODY_CRASH_AT: 'after-write:0' })).toThrow(/CUSTODY_CRASH_AT: must be before-write:<n>, after-write:<n>, dkls-presigned:<n> or dkls-final:<n>/);
    expect(loadConfig(production).custodyCrashAt).toBeUndefined();
    expect(() => loadConfig({ ...production, CUSTODY_CRASH_AT: 'before-write:1' })).toThrow(/CUSTODY_CRASH_AT: is a fault-injection switch for tests; refusing to start production with it/);
  });
});
