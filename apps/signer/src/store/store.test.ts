import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LOCK_FILE } from './lock.ts';
import { GENESIS_HASH, canonicalJson, entryHash, type LogEntry } from './signature-log.ts';
import { openSignerStore, SIGNATURE_LOG_FILE } from './store.ts';
import { compareWithAudit, verifySignatureLog } from './verify-log.ts';

const root = mkdtempSync(path.join(tmpdir(), 'signer-store-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = () => path.join(root, `store-${++n}`);

function memoryLogger() {
  const lines: Array<{ msg?: string } & Record<string, unknown>> = [];
  return { lines, info: (obj: object, msg?: string) => lines.push({ msg, ...obj }), warn: (obj: object, msg?: string) => lines.push({ msg, ...obj }) };
}

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('signer store', () => {
  it('appends in call order, chains the entries and verifies', async () => {
    const dir = freshDir();
    const store = await openSignerStore(dir);
    // Every fourth is a threshold signature: its line also records the presignature it used.
    const presignature = (i: number) => (i % 4 === 0 ? { presignature: (i + 1).toString(16).padStart(64, 'a') } : {});
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.appendSignature({ walletId: `w${i % 3}`, digest: `0x${i.toString(16).padStart(64, '0')}`, requestId: i % 2 ? `r${i}` : null, action: 'sign', ...presignature(i) })));
    expect(results.map((r) => r.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    const entries = await all(store.readLog());
    expect(entries.map((e) => e.seq)).toEqual(results.map((r) => r.seq));
    expect(entries[0]!.prev).toBe(GENESIS_HASH);
    entries.forEach((e, i) => {
      expect(e.hash).toBe(results[i]!.hash);
      if (i > 0) expect(e.prev).toBe(entries[i - 1]!.hash);
      const { hash, ...rest } = e;
      expect(entryHash(rest)).toBe(hash);
      // The format's definition: sha256(prev + "\n" + canonical JSON, keys sorted).
      expect(createHash('sha256').update(`${e.prev}\n${canonicalJson(rest)}`).digest('hex')).toBe(hash);
    });
    expect(entries[1]).toMatchObject({ walletId: 'w1', requestId: 'r1', action: 'sign' });
    expect(entries[1]).not.toHaveProperty('presignature');
    expect(entries[4]).toMatchObject({ walletId: 'w1', presignature: '5'.padStart(64, 'a') });
    await expect(store.appendSignature({ walletId: 'w0', digest: 'd', requestId: null, presignature: 'not hex' })).rejects.toMatchObject({ code: 'SIGNER_BAD_LOG_ENTRY' });
    await expect(store.verifyLog()).resolves.toEqual({ ok: true, entries: 20 });
    expect(statSync(path.join(dir, SIGNATURE_LOG_FILE)).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    await store.close();
    // Reopened, the chain continues.
    const again = await openSignerStore(dir);
    await expect(again.appendSignature({ walletId: 'w0', digest: 'd', requestId: null })).resolves.toMatchObject({ seq: 21 });
    await expect(again.verifyLog()).resolves.toMatchObject({ ok: true, entries: 21 });
    await again.close();
    await expect(verifySignatureLog(dir)).resolves.toEqual({ ok: true, entries: 21 });
  });

  it('reports a tampered middle line with its seq, and leaves it as it is', async () => {
    const dir = freshDir();
    const store = await openSignerStore(dir);
    for (let i = 0; i < 5; i++) await store.appendSignature({ walletId: 'w', digest: `d${i}`, requestId: null });
    await store.close();
    const file = path.join(dir, SIGNATURE_LOG_FILE);
    const lines = readFileSync(file, 'utf8').split('\n');
    lines[2] = lines[2]!.replace('"d2"', '"d2-forged"');
    writeFileSync(file, lines.join('\n'));
    const reopened = await openSignerStore(dir);
    await expect(reopened.verifyLog()).resolves.toMatchObject({ ok: false, firstBadSeq: 3, entries: 2, reason: expect.stringContaining('hash') });
    await reopened.close();
    expect(readFileSync(file, 'utf8')).toContain('d2-forged');
    // A removed line breaks the chain too.
    writeFileSync(file, lines.filter((_, i) => i !== 1).join('\n').replace('d2-forged', 'd2'));
    await expect(verifySignatureLog(dir)).resolves.toMatchObject({ ok: false, firstBadSeq: 3, reason: expect.stringContaining('seq 3 where 2') });
  });

  it("finds a presignature id changed or removed afterwards: the chain covers a threshold signature's record of use", async () => {
    const dir = freshDir();
    const store = await openSignerStore(dir);
    for (let i = 0; i < 3; i++) await store.appendSignature({ walletId: 'w', digest: `d${i}`, requestId: null, presignature: String(i).repeat(64) });
    await store.close();
    const file = path.join(dir, SIGNATURE_LOG_FILE);
    const lines = readFileSync(file, 'utf8').split('\n');
    await expect(verifySignatureLog(dir)).resolves.toEqual({ ok: true, entries: 3 });
    writeFileSync(file, [lines[0], lines[1]!.replace('1'.repeat(64), '9'.repeat(64)), ...lines.slice(2)].join('\n'));
    await expect(verifySignatureLog(dir)).resolves.toMatchObject({ ok: false, firstBadSeq: 2, reason: expect.stringContaining('hash') });
    writeFileSync(file, [lines[0], lines[1]!.replace(`"presignature":"${'1'.repeat(64)}",`, ''), ...lines.slice(2)].join('\n'));
    await expect(verifySignatureLog(dir)).resolves.toMatchObject({ ok: false, firstBadSeq: 2 });
  });

  it('cuts a torn final line away on open, logs it, and continues the chain', async () => {
    const dir = freshDir();
    const store = await openSignerStore(dir);
    for (let i = 0; i < 3; i++) await store.appendSignature({ walletId: 'w', digest: `d${i}`, requestId: null });
    await store.close();
    const file = path.join(dir, SIGNATURE_LOG_FILE);
    const intact = readFileSync(file, 'utf8');
    appendFileSync(file, '{"seq":4,"time":"2026-');
    await expect(verifySignatureLog(dir)).resolves.toMatchObject({ ok: true, entries: 3, incompleteTailBytes: 22 });
    const logger = memoryLogger();
    const reopened = await openSignerStore(dir, { logger });
    // Open, the file is its lines followed by the journal's padding.
    expect(readFileSync(file, 'utf8').trimEnd()).toBe(intact.trimEnd());
    expect(logger.lines).toContainEqual(expect.objectContaining({ file, bytesRemoved: 22 }));
    await expect(reopened.appendSignature({ walletId: 'w', digest: 'd3', requestId: null })).resolves.toMatchObject({ seq: 4 });
    await expect(reopened.verifyLog()).resolves.toEqual({ ok: true, entries: 4 });
    await reopened.close();
  });

  it('refuses to open when the last complete line is not an entry', async () => {
    const dir = freshDir();
    const store = await openSignerStore(dir);
    await store.appendSignature({ walletId: 'w', digest: 'd', requestId: null });
    await store.close();
    appendFileSync(path.join(dir, SIGNATURE_LOG_FILE), 'garbage\n');
    await expect(openSignerStore(dir)).rejects.toThrow(/last entry is not a valid signature log entry/);
  });

  it('keeps epochs across reopen and refuses going back or staying', async () => {
    const dir = freshDir();
    const store = await openSignerStore(dir);
    expect(store.epochOf('w1')).toBe(0);
    await store.advanceEpoch('w1', 1);
    await store.advanceEpoch('w1', 5);
    await store.advanceEpoch('w2', 2);
    await expect(store.advanceEpoch('w1', 5)).rejects.toMatchObject({ code: 'EPOCH_NOT_ADVANCING', status: 409 });
    await expect(store.advanceEpoch('w1', 3)).rejects.toMatchObject({ code: 'EPOCH_NOT_ADVANCING' });
    await expect(store.advanceEpoch('w1', 0)).rejects.toMatchObject({ code: 'SIGNER_BAD_EPOCH' });
    // Concurrent advances of one wallet: the lower one loses, whatever the order of their writes.
    const outcomes = await Promise.allSettled([store.advanceEpoch('w3', 7), store.advanceEpoch('w3', 6)]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected']);
    await store.close();
    const reopened = await openSignerStore(dir);
    expect([reopened.epochOf('w1'), reopened.epochOf('w2'), reopened.epochOf('w3'), reopened.epochOf('none')]).toEqual([5, 2, 7, 0]);
    await expect(reopened.advanceEpoch('w1', 4)).rejects.toMatchObject({ code: 'EPOCH_NOT_ADVANCING' });
    await reopened.close();
  });

  it('lets one process own a directory: a second open throws, a stale lock is taken over', async () => {
    const dir = freshDir();
    const store = await openSignerStore(dir);
    await expect(openSignerStore(dir)).rejects.toThrow(new RegExp(`in use by process ${process.pid}`));
    await store.close();
    // A lock left by a process that is gone.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    writeFileSync(path.join(dir, LOCK_FILE), `${dead.stdout.toString()}\n`);
    const logger = memoryLogger();
    const taken = await openSignerStore(dir, { logger });
    expect(logger.lines).toContainEqual(expect.objectContaining({ stalePid: Number(dead.stdout.toString()) }));
    expect(readFileSync(path.join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    await taken.close();
  });

  it('group-commits: 2,000 appends with 50 in flight (latency printed, not asserted)', async () => {
    const store = await openSignerStore(freshDir());
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        while (next < 2000) {
          const i = next++;
          const t = performance.now();
          await store.appendSignature({ walletId: `w${i % 10}`, digest: `0x${i.toString(16).padStart(64, '0')}`, requestId: `req-${i}` });
          latencies.push(performance.now() - t);
        }
      }),
    );
    const elapsed = performance.now() - started;
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(2);
    const stats = store.stats();
    console.log(
      `group commit, 2000 appends, 50 in flight: ${(2000 / (elapsed / 1000)).toFixed(0)} appends/s, p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${pct(100)} ms, ${stats.logFsyncBatches} fdatasync batches`,
    );
    expect(stats.signaturesLogged).toBe(2000);
    await expect(store.verifyLog()).resolves.toEqual({ ok: true, entries: 2000 });
    await store.close();
  });

  it('group-commits: 300 appends paced at ~200/s (latency printed, not asserted)', async () => {
    const store = await openSignerStore(freshDir());
    const latencies: number[] = [];
    const pending: Promise<void>[] = [];
    for (let i = 0; i < 300; i++) {
      const t = performance.now();
      pending.push(store.appendSignature({ walletId: 'w', digest: `d${i}`, requestId: null }).then(() => void latencies.push(performance.now() - t)));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(pending);
    latencies.sort((a, b) => a - b);
    const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!.toFixed(2);
    console.log(`group commit, 300 appends at ~200/s: p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${pct(100)} ms, ${store.stats().logFsyncBatches} batches`);
    await store.close();
  });
});

describe('compareWithAudit', () => {
  const entry = (walletId: string, digest: string, requestId: string | null, seq: number): LogEntry => ({ seq, time: '', walletId, digest, requestId, action: null, prev: '', hash: '' });
  it('finds signatures without an audit row and audit rows without a signature, counting repeats', () => {
    const log = [entry('w1', '0xAA', 'r1', 1), entry('w1', '0xaa', 'r1', 2), entry('w2', '0xbb', null, 3), entry('w3', '0xcc', 'r3', 4)];
    const audit = [
      { walletId: 'w1', digest: '0xaa', requestId: 'r1', id: 'a1' },
      { walletId: 'w2', digest: '0xbb', requestId: null, id: 'a2' },
      { walletId: 'w9', digest: '0xdd', requestId: 'r9', id: 'a9' },
    ];
    const result = compareWithAudit(log, audit);
    expect(result.missingInAudit.map((e) => e.seq)).toEqual([2, 4]);
    expect(result.missingInLog.map((r) => r.id)).toEqual(['a9']);
  });
});
