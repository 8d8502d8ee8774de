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
 */
import { closeSync, constants, fdatasyncSync, fstatSync, ftruncateSync, openSync, readSync, writeSync } from 'node:fs';

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
  /** Bytes known to be durable (complete lines). */
  durableBytes: number;
  batches = 0;
  lines = 0;

  private constructor(
    private readonly fd: number,
    readonly file: string,
    size: number,
  ) {
    this.durableBytes = size;
  }

  static async open(file: string): Promise<GroupCommitJournal> {
    const fd = openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_DSYNC, 0o600);
    return new GroupCommitJournal(fd, file, fstatSync(fd).size);
  }

  append(line: string): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) return Promise.reject(new Error(`${this.file}: the journal is closed`));
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
      let offset = 0;
      while (offset < buffer.length) offset += writeSync(this.fd, buffer, offset, buffer.length - offset);
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

  async close(): Promise<void> {
    await this.idle();
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/**
 * Removes an incomplete final line (bytes after the last newline: a write torn by a crash, never
 * acknowledged since appends resolve only after their whole line is durable). Returns the number
 * of bytes removed. Complete lines are never touched, whatever they contain.
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
    const size = fstatSync(fd).size;
    if (size === 0) return 0;
    const last = Buffer.alloc(1);
    readSync(fd, last, 0, 1, size - 1);
    if (last[0] === 0x0a) return 0;
    // Scan backwards for the last newline.
    const chunk = Buffer.alloc(64 * 1024);
    let end = size;
    let keep = 0;
    while (end > 0) {
      const start = Math.max(0, end - chunk.length);
      const n = readSync(fd, chunk, 0, end - start, start);
      const index = chunk.subarray(0, n).lastIndexOf(0x0a);
      if (index !== -1) {
        keep = start + index + 1;
        break;
      }
      end = start;
    }
    ftruncateSync(fd, keep);
    fdatasyncSync(fd);
    return size - keep;
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
