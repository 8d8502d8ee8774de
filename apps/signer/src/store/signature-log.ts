/**
 * The signature log's format and its verification. One JSON line per signature:
 *   {seq, time, walletId, digest, requestId, action, presignature?, prev, hash}
 * `presignature` is the id of the threshold ECDSA presignature a signature used: the line is that
 * use's durable record too (one flush for both).
 * seq counts from 1; prev is the previous line's hash (64 zeros for the first);
 * hash = sha256hex(prev + '\n' + canonical JSON of the entry without `hash`), canonical meaning
 * keys sorted and no whitespace. Removing, reordering or editing a line breaks the chain from there.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export const GENESIS_HASH = '0'.repeat(64);

export interface LogEntry {
  seq: number;
  time: string;
  walletId: string;
  digest: string;
  requestId: string | null;
  action: string | null;
  /** A threshold ECDSA signature's presignature id (64 hex). */
  presignature?: string;
  prev: string;
  hash: string;
}

export interface VerifyResult {
  ok: boolean;
  /** Complete lines read. */
  entries: number;
  firstBadSeq?: number;
  reason?: string;
  /** Bytes after the last newline (a line being written, or torn by a crash): not verified. */
  incompleteTailBytes?: number;
}

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** canonicalJson of an entry without its hash, its keys written in sorted order: the same bytes without sorting per line. */
function canonicalEntry({ seq, time, walletId, digest, requestId, action, presignature, prev }: Omit<LogEntry, 'hash'>): string {
  if (action === undefined || requestId === undefined) return canonicalJson({ seq, time, walletId, digest, requestId, action, presignature, prev });
  const j = JSON.stringify;
  const used = presignature === undefined ? '' : `"presignature":${j(presignature)},`;
  return `{"action":${j(action)},"digest":${j(digest)},${used}"prev":${j(prev)},"requestId":${j(requestId)},"seq":${j(seq)},"time":${j(time)},"walletId":${j(walletId)}}`;
}

export function entryHash(entry: Omit<LogEntry, 'hash'>): string {
  return createHash('sha256').update(`${entry.prev}\n${canonicalEntry(entry)}`).digest('hex');
}

const isNullableString = (v: unknown) => v === null || typeof v === 'string';

export function parseEntry(line: string): LogEntry | undefined {
  let value: Partial<LogEntry>;
  try {
    value = JSON.parse(line) as Partial<LogEntry>;
  } catch {
    return undefined;
  }
  if (
    typeof value !== 'object' ||
    value === null ||
    !Number.isSafeInteger(value.seq) ||
    typeof value.time !== 'string' ||
    typeof value.walletId !== 'string' ||
    typeof value.digest !== 'string' ||
    !isNullableString(value.requestId) ||
    !isNullableString(value.action) ||
    (value.presignature !== undefined && (typeof value.presignature !== 'string' || !/^[0-9a-f]{64}$/.test(value.presignature))) ||
    typeof value.prev !== 'string' ||
    typeof value.hash !== 'string'
  ) {
    return undefined;
  }
  return value as LogEntry;
}

const isPadding = (byte: number) => byte === 0x20 || byte === 0x00 || byte === 0x0a;
const nonPadding = (bytes: Buffer) => bytes.reduce((n, b) => (isPadding(b) ? n : n + 1), 0);

/**
 * The complete lines of `file` (up to `endByte` when given), and the length of an incomplete tail.
 * A live journal's file ends in padding (journal.ts): the first line that is empty or ends in a
 * space or a NUL starts it, and what precedes the padding on that line is a write in progress (the
 * incomplete tail). Anything but padding after that line is not a journal's tail: it throws.
 */
export async function* readLines(file: string, endByte?: number): AsyncGenerator<string, number> {
  if (endByte === 0) return 0;
  let stream;
  try {
    stream = createReadStream(file, endByte === undefined ? {} : { end: endByte - 1 });
    let rest = Buffer.alloc(0);
    let tail: number | undefined;
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      if (tail !== undefined) {
        if (nonPadding(chunk) > 0) throw new Error(`${file}: content after the padding that ends a journal`);
        continue;
      }
      let data = rest.length ? Buffer.concat([rest, chunk]) : chunk;
      let newline: number;
      while ((newline = data.indexOf(0x0a)) !== -1) {
        const line = data.subarray(0, newline);
        data = data.subarray(newline + 1);
        if (line.length === 0 || isPadding(line[line.length - 1]!)) {
          tail = nonPadding(line);
          if (nonPadding(data) > 0) throw new Error(`${file}: content after the padding that ends a journal`);
          break;
        }
        yield line.toString('utf8');
      }
      rest = tail === undefined ? Buffer.from(data) : Buffer.alloc(0);
    }
    return tail ?? nonPadding(rest);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  } finally {
    stream?.destroy();
  }
}

export async function* readEntries(file: string, endByte?: number): AsyncGenerator<LogEntry> {
  let lineNo = 0;
  for await (const line of readLines(file, endByte)) {
    lineNo++;
    const entry = parseEntry(line);
    if (!entry) throw new Error(`${file}: line ${lineNo} is not a signature log entry`);
    yield entry;
  }
}

/** Checks the whole chain: every line parses, seq follows, prev links, hash matches. Reports the first bad line, fixes nothing. */
export async function verifyLogFile(file: string, endByte?: number): Promise<VerifyResult> {
  let prev = GENESIS_HASH;
  let expectedSeq = 1;
  let entries = 0;
  const lines = readLines(file, endByte);
  for (;;) {
    const next = await lines.next();
    if (next.done) {
      return { ok: true, entries, ...(next.value > 0 ? { incompleteTailBytes: next.value } : {}) };
    }
    const entry = parseEntry(next.value);
    const bad = (reason: string) => {
      void lines.return(0);
      return { ok: false, entries, firstBadSeq: entry?.seq ?? expectedSeq, reason };
    };
    if (!entry) return bad(`line ${entries + 1} is not a valid entry`);
    if (entry.seq !== expectedSeq) return bad(`seq ${entry.seq} where ${expectedSeq} was expected`);
    if (entry.prev !== prev) return bad(`seq ${entry.seq}: prev does not match the hash of seq ${expectedSeq - 1}`);
    if (entryHash(entry) !== entry.hash) return bad(`seq ${entry.seq}: hash does not match its content`);
    prev = entry.hash;
    expectedSeq++;
    entries++;
  }
}
