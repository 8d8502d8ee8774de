/**
 * Append-only JSON-lines files with group commit, and their crash repair.
 *
 * Group commit: an append joins the batch of the current event-loop turn; once the turn's callbacks
 * have run (setImmediate), every line that arrived is written with one write on a descriptor opened
 * O_DSYNC (the write returns only once its data is durable: write and fdatasync in one system call),
 * then they all resolve. One fsync per batch instead of per line is what lets hundreds of appends per
 * second each wait a single fsync or two. The write is synchronous, on this thread: a signature
 * cannot leave before its line is durable anyway, and a write here saves the two thread wake-ups of
 * a thread-pool write (the pool's worker, then this thread again), each of which waits for a core on
 * a busy machine; appends made while it blocks queue up for the next batch. A write failure leaves
 * the file's tail unknown, so the journal refuses every later append (the process must restart,
 * which repairs the tail).
 *
 * Preallocation: while a journal is open its file ends in padding (spaces, then one newline) that
 * the writes overwrite in place, so a write never changes the file's size. A durable append to the
 * end of a file is two device writes (the data, then the inode for its new size); an overwrite
 * within the file is one, which halves the wait and the kernel's work per batch (measured in
 * docs/benchmarks.md, signer section). The padding is written ahead in chunks, and cut off again by
 * close() and by repairTornTail(), so a file at rest holds only its lines. A reader of a live file
 * stops at the first line that is empty or ends in padding (readers here: readLines); a line never
 * ends in a space or a NUL, which append() checks.
 */
import { closeSync, constants, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';

/** Padding written ahead of the lines, per chunk (about a thousand signature log lines). */
export const PREALLOCATE_BYTES = 256 * 1024;

const NEWLINE = 0x0a;
/** Bytes that fill a preallocated tail: spaces and newlines written ahead, NULs where that write was cut short. */
const isPadding = (byte: number) => byte === 0x20 || byte === 0x00 || byte === NEWLINE;

interface Waiting {
  data: string;
  resolve(): void;
  reject(error: Error): void;
}

export class GroupCommitJournal {
  private queue: Waiting[] = [];
  private flushing: Promise<void> | undefined;
  private failure: Error | undefined;
  private closed = false;
  /** Bytes known to be durable (complete lines); the next write goes there. */
  durableBytes: number;
  /** Where the padding's final newline is: writes stay below it with a byte of padding to spare. */
  private paddedEnd: number;
  batches = 0;
  lines = 0;

  private constructor(
    private fd: number,
    readonly file: string,
    size: number,
    private readonly preallocateBytes: number,
  ) {
    this.durableBytes = size;
    this.paddedEnd = size;
  }

  /** Opens `file` (created when missing), which must hold only complete lines: run repairTornTail first. */
  static async open(file: string, options: { preallocateBytes?: number } = {}): Promise<GroupCommitJournal> {
    const fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_DSYNC, 0o600);
    try {
      const { end, tornBytes, size } = scanEnd(fd);
      if (tornBytes > 0) throw new Error(`${file}: ends in an incomplete line; repairTornTail() must run before the journal opens`);
      if (size !== end) ftruncateSync(fd, end);
      const journal = new GroupCommitJournal(fd, file, end, Math.max(2, options.preallocateBytes ?? PREALLOCATE_BYTES));
      journal.pad(end);
      return journal;
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  /** Writes padding from `from` on (durable, O_DSYNC) so that a write of `need` bytes at `from` fits. */
  private pad(from: number, need = 0): void {
    const end = from + need + this.preallocateBytes;
    const padding = Buffer.alloc(end + 1 - from, 0x20);
    padding[padding.length - 1] = NEWLINE;
    writeAll(this.fd, padding, from);
    this.paddedEnd = end;
  }

  append(line: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error(`${this.file}: the journal is closed`));
    if (line.length < 2 || line.indexOf('\n') !== line.length - 1 || isPadding(line.charCodeAt(line.length - 2))) {
      return Promise.reject(new Error(`${this.file}: an append is one line ending in a newline, not in a space or a NUL`));
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ data: line, resolve, reject });
      this.flushing ??= new Promise<void>((done) =>
        setImmediate(() => {
          this.flushing = undefined;
          this.flush();
          done();
        }),
      );
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    if (batch.length === 0) return;
    const buffer = Buffer.from(batch.length === 1 ? batch[0]!.data : batch.map((w) => w.data).join(''), 'utf8');
    try {
      // One byte of padding stays before the final newline, so that a write cut short by a crash
      // is never followed directly by a newline (it would read as a complete line).
      if (this.durableBytes + buffer.length >= this.paddedEnd) this.pad(this.durableBytes, buffer.length);
      writeAll(this.fd, buffer, this.durableBytes);
    } catch (error) {
      this.failure = new Error(`${this.file}: write failed (${(error as NodeJS.ErrnoException).code ?? 'error'}); the journal refuses appends until the process restarts`);
      for (const w of batch) w.reject(this.failure);
      return;
    }
    this.durableBytes += buffer.length;
    this.batches++;
    this.lines += batch.length;
    for (const w of batch) w.resolve();
  }

  /** Resolves when every append made so far is durable (or failed). */
  async idle(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** Cuts the padding off (the file keeps only its lines) and closes. */
  async close(): Promise<void> {
    await this.idle();
    if (this.closed) return;
    this.closed = true;
    try {
      if (!this.failure) {
        ftruncateSync(this.fd, this.durableBytes);
        fdatasyncSync(this.fd);
      }
    } finally {
      closeSync(this.fd);
    }
  }
}

function writeAll(fd: number, buffer: Buffer, position: number): void {
  let offset = 0;
  while (offset < buffer.length) offset += writeSync(fd, buffer, offset, buffer.length - offset, position + offset);
}

/**
 * Where a journal file's complete lines end: after the last newline that ends a line whose last
 * byte is not padding. tornBytes counts the bytes after it that are not padding (a line cut short).
 */
function scanEnd(fd: number): { end: number; tornBytes: number; size: number } {
  const size = fstatSync(fd).size;
  const chunk = Buffer.alloc(64 * 1024);
  let tornBytes = 0;
  let after = -1; // the byte after the one being looked at
  let pos = size;
  while (pos > 0) {
    const start = Math.max(0, pos - chunk.length);
    const n = readSync(fd, chunk, 0, pos - start, start);
    for (let i = n - 1; i >= 0; i--) {
      const byte = chunk[i]!;
      if (!isPadding(byte)) {
        if (after === NEWLINE) return { end: start + i + 2, tornBytes, size };
        tornBytes++;
      }
      after = byte;
    }
    pos = start;
  }
  return { end: 0, tornBytes, size };
}

/**
 * Removes an incomplete final line (bytes after the last complete line: a write torn by a crash,
 * never acknowledged since appends resolve only after their whole line is durable) and the padding
 * of a journal that was not closed. Returns the number of bytes of the incomplete line (padding
 * not counted). Complete lines are never touched, whatever they contain.
 */
export function repairTornTail(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, 'r+');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  try {
    const { end, tornBytes, size } = scanEnd(fd);
    if (end === size) return 0;
    ftruncateSync(fd, end);
    fdatasyncSync(fd);
    return tornBytes;
  } finally {
    closeSync(fd);
  }
}

/** The last complete line of `file` (after repairTornTail), or undefined when it is empty. */
export function lastLine(file: string): string | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    if (size === 0) return undefined;
    let length = Math.min(size, 4096);
    for (;;) {
      const buffer = Buffer.alloc(length);
      readSync(fd, buffer, 0, length, size - length);
      // buffer ends with '\n'; look for the one before it.
      const index = buffer.subarray(0, length - 1).lastIndexOf(0x0a);
      if (index !== -1) return buffer.subarray(index + 1, length - 1).toString('utf8');
      if (length === size) return buffer.subarray(0, length - 1).toString('utf8');
      length = Math.min(size, length * 4);
    }
  } finally {
    closeSync(fd);
  }
}
