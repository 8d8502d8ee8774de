/**
 * The signer's own store, in its data directory (default DATA_DIR/signer/), which the API process
 * cannot write: what signing safety needs stays on the signer's side.
 *
 *   signatures.log  append-only, hash-chained record of every signature (signature-log.ts)
 *   epochs.jsonl    append-only {walletId, epoch, time} records; replayed on open, the highest wins
 *   signer.lock     the owning process (lock.ts)
 *
 * Epochs are a file of their own rather than a record type in the signature log: the log stays one
 * kind of entry (what the audit comparison reads and what the chain covers is exactly the
 * signatures), and replaying epochs on open reads a small file instead of the whole log.
 *
 * On open, an incomplete final line of either file is cut away (and logged): it is a write a crash
 * tore, which was never acknowledged. Anything else wrong is left as it is: verifyLog reports a bad
 * line with its seq, and a last line that does not parse refuses the open (the chain could not be
 * continued).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { SignerError } from '../server/errors.ts';
import { GroupCommitJournal, lastLine, repairTornTail } from './journal.ts';
import { acquireStoreLock, type StoreLock } from './lock.ts';
import { entryHash, GENESIS_HASH, parseEntry, readEntries, readLines, verifyLogFile, type LogEntry, type VerifyResult } from './signature-log.ts';

export type { LogEntry, VerifyResult };

export const SIGNATURE_LOG_FILE = 'signatures.log';
export const EPOCHS_FILE = 'epochs.jsonl';

export interface SignatureInput {
  walletId: string;
  digest: string;
  requestId: string | null;
  action?: string;
  /** The threshold ECDSA presignature the signature used (64 hex): this line is its durable record of use. */
  presignature?: string;
}

export interface SignerStore {
  /** Resolves once the entry's line is durable (fdatasync). */
  appendSignature(entry: SignatureInput): Promise<{ seq: number; hash: string }>;
  /** 0 when none recorded. */
  epochOf(walletId: string): number;
  /** Durable before it resolves; refuses an epoch not above the current one (409 EPOCH_NOT_ADVANCING). */
  advanceEpoch(walletId: string, epoch: number): Promise<void>;
  verifyLog(): Promise<VerifyResult>;
  readLog(): AsyncIterable<LogEntry>;
  stats(): { signaturesLogged: number; logFsyncBatches: number; entries: number };
  close(): Promise<void>;
}

export interface StoreLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

const MAX_FIELD = 1024;

function checkField(name: string, value: unknown, nullable = false): void {
  if (nullable && value === null) return;
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_FIELD) {
    throw new SignerError('SIGNER_BAD_LOG_ENTRY', `${name} must be a non-empty string of at most ${MAX_FIELD} characters`, 400);
  }
}

export async function openSignerStore(dir: string, options: { logger?: StoreLogger } = {}): Promise<SignerStore> {
  const logger = options.logger ?? { info: () => {}, warn: (obj: object, msg?: string) => process.stderr.write(`${JSON.stringify({ level: 'warn', msg, ...obj })}\n`) };
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lock = acquireStoreLock(dir);
  if (lock.tookOverFrom !== undefined) logger.warn({ dir, stalePid: lock.tookOverFrom }, 'signer store lock was stale (its process is gone): taken over');
  try {
    return await openLocked(dir, lock, logger);
  } catch (error) {
    lock.release();
    throw error;
  }
}

async function openLocked(dir: string, lock: StoreLock, logger: StoreLogger): Promise<SignerStore> {
  const logFile = path.join(dir, SIGNATURE_LOG_FILE);
  const epochsFile = path.join(dir, EPOCHS_FILE);
  for (const file of [logFile, epochsFile]) {
    const removed = repairTornTail(file);
    if (removed > 0) logger.warn({ file, bytesRemoved: removed }, 'incomplete final line (torn by a crash, never acknowledged) removed');
  }

  let lastSeq = 0;
  let lastHash = GENESIS_HASH;
  const tail = lastLine(logFile);
  if (tail !== undefined) {
    const entry = parseEntry(tail);
    if (!entry) throw new Error(`${logFile}: the last entry is not a valid signature log entry; inspect the file (verifySignatureLog) before starting the signer`);
    lastSeq = entry.seq;
    lastHash = entry.hash;
  }

  const epochs = new Map<string, number>();
  let lineNo = 0;
  for await (const line of readLines(epochsFile)) {
    lineNo++;
    let record: { walletId?: unknown; epoch?: unknown };
    try {
      record = JSON.parse(line) as typeof record;
    } catch {
      record = {};
    }
    if (typeof record.walletId !== 'string' || !Number.isSafeInteger(record.epoch)) throw new Error(`${epochsFile}: line ${lineNo} is not an epoch record; refusing to guess the epochs`);
    epochs.set(record.walletId, Math.max(epochs.get(record.walletId) ?? 0, record.epoch as number));
  }

  const log = await GroupCommitJournal.open(logFile);
  const epochJournal = await GroupCommitJournal.open(epochsFile);
  const epochQueue = new Map<string, Promise<void>>();
  let closed = false;
  const ensureOpen = () => {
    if (closed) throw new Error('the signer store is closed');
  };

  return {
    async appendSignature(input) {
      ensureOpen();
      checkField('walletId', input.walletId);
      checkField('digest', input.digest);
      checkField('requestId', input.requestId, true);
      if (input.action !== undefined) checkField('action', input.action);
      if (input.presignature !== undefined && !/^[0-9a-f]{64}$/.test(input.presignature)) throw new SignerError('SIGNER_BAD_LOG_ENTRY', 'presignature must be 32 bytes of hex', 400);
      // Chained here, synchronously: the log's order is the order of the calls.
      const entry = {
        seq: lastSeq + 1,
        time: new Date().toISOString(),
        walletId: input.walletId,
        digest: input.digest,
        requestId: input.requestId,
        action: input.action ?? null,
        ...(input.presignature !== undefined ? { presignature: input.presignature } : {}),
        prev: lastHash,
      };
      const hash = entryHash(entry);
      lastSeq = entry.seq;
      lastHash = hash;
      await log.append(`${JSON.stringify(entry).slice(0, -1)},"hash":"${hash}"}\n`);
      return { seq: entry.seq, hash };
    },

    epochOf: (walletId) => epochs.get(walletId) ?? 0,

    advanceEpoch(walletId, epoch) {
      ensureOpen();
      checkField('walletId', walletId);
      if (!Number.isSafeInteger(epoch) || epoch < 1) return Promise.reject(new SignerError('SIGNER_BAD_EPOCH', 'epoch must be a positive integer', 400));
      // One advance per wallet at a time, so the check sees the previous advance's outcome.
      const previous = epochQueue.get(walletId) ?? Promise.resolve();
      const next = previous.then(async () => {
        const current = epochs.get(walletId) ?? 0;
        if (epoch <= current) {
          throw new SignerError('EPOCH_NOT_ADVANCING', `epoch ${epoch} is not above the current epoch ${current} of this wallet`, 409, { walletId, current, requested: epoch });
        }
        await epochJournal.append(`${JSON.stringify({ walletId, epoch, time: new Date().toISOString() })}\n`);
        epochs.set(walletId, epoch);
      });
      const settled = next.catch(() => {});
      epochQueue.set(walletId, settled);
      void settled.then(() => {
        if (epochQueue.get(walletId) === settled) epochQueue.delete(walletId);
      });
      return next;
    },

    async verifyLog() {
      await log.idle();
      return verifyLogFile(logFile, log.durableBytes);
    },

    readLog: () => readEntries(logFile, log.durableBytes),

    stats: () => ({ signaturesLogged: log.lines, logFsyncBatches: log.batches, entries: lastSeq }),

    async close() {
      if (closed) return;
      closed = true;
      await Promise.all([...epochQueue.values()]);
      await log.close();
      await epochJournal.close();
      lock.release();
    },
  };
}
