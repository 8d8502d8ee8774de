/**
 * What threshold ECDSA (DKLs23) safety needs on the signer's side, in its own directory beside the
 * signature log (`threshold.jsonl`, append-only, each line durable before the call resolves):
 *
 * - each wallet's current OT setup, and whether an abort made it unusable. The signer signs only
 *   with a share of its wallet's current, usable setup, so a compromised API cannot bring back a
 *   sealed share from before an abort (the selective-abort attack needs the same correlations used
 *   again) or from before a newer setup;
 * - which presignatures it used: `claimPresignature` refuses an id already used in this process;
 *   the durable record of the use is the signature's line in the signature log (`presignature`),
 *   flushed before the final message leaves, with the signature's own record in one write. A
 *   presignature lives only in this process's memory, so none from before a restart exists to be
 *   used again; older stores' `presignature-used` records are still read.
 *
 * On open, an incomplete last line (a write a crash tore, never acknowledged) is cut away; any other
 * bad line refuses the open.
 */
import path from 'node:path';
import { SignerError } from '../server/errors.ts';
import { GroupCommitJournal, repairTornTail } from './journal.ts';
import { readLines } from './signature-log.ts';

export const THRESHOLD_FILE = 'threshold.jsonl';

type Setup = { otSetupId: string; usable: boolean };
type Record =
  | { kind: 'ot-setup'; walletId: string; otSetupId: string; time: string }
  | { kind: 'ot-unusable'; walletId: string; otSetupId: string; time: string }
  | { kind: 'presignature-used'; walletId: string; id: string; time: string };

export interface ThresholdStore {
  /** The wallet's current OT setup, or null when none was recorded. */
  setupOf(walletId: string): Setup | null;
  /** Records a finished OT setup as the wallet's current one (durable before it resolves). */
  recordSetup(walletId: string, otSetupId: string): Promise<void>;
  /** Records an abort under the wallet's setup: it signs no more until a fresh setup. */
  markUnusable(walletId: string, otSetupId: string): Promise<void>;
  /** Refuses (409) an id already used; otherwise marks it used, at once (its durable record: the signature log's line). */
  claimPresignature(id: string): void;
  close(): Promise<void>;
}

const HEX64 = /^[0-9a-f]{64}$/;

function parseRecord(line: string): Record | null {
  let value: Partial<Record> & { [key: string]: unknown };
  try {
    value = JSON.parse(line) as typeof value;
  } catch {
    return null;
  }
  if (typeof value.walletId !== 'string' || typeof value.time !== 'string') return null;
  if ((value.kind === 'ot-setup' || value.kind === 'ot-unusable') && typeof value.otSetupId === 'string' && HEX64.test(value.otSetupId)) return value as Record;
  if (value.kind === 'presignature-used' && typeof value.id === 'string' && HEX64.test(value.id)) return value as Record;
  return null;
}

/** The store's rules over its records; `append` makes a record durable (the file) or does nothing (memory). */
function storeOver(append: (record: Record) => Promise<void>, close: () => Promise<void>) {
  const setups = new Map<string, Setup>();
  const used = new Set<string>();
  const now = () => new Date().toISOString();
  /** A record as it changes the state (on replay and after each write). */
  const apply = (record: Record) => {
    if (record.kind === 'ot-setup') setups.set(record.walletId, { otSetupId: record.otSetupId, usable: true });
    else if (record.kind === 'ot-unusable') {
      const current = setups.get(record.walletId);
      if (current?.otSetupId === record.otSetupId) current.usable = false;
    } else used.add(record.id);
  };
  const store: ThresholdStore & { used: ReadonlySet<string> } = {
    used,
    setupOf: (walletId) => {
      const setup = setups.get(walletId);
      return setup ? { ...setup } : null;
    },
    async recordSetup(walletId, otSetupId) {
      if (!HEX64.test(otSetupId)) throw new SignerError('INVALID_PARAMS', 'an OT setup id is 32 bytes of hex', 400);
      const record: Record = { kind: 'ot-setup', walletId, otSetupId, time: now() };
      await append(record);
      apply(record);
    },
    async markUnusable(walletId, otSetupId) {
      const record: Record = { kind: 'ot-unusable', walletId, otSetupId, time: now() };
      // Applied first: no other session may start under this setup while the line is written.
      apply(record);
      await append(record);
    },
    claimPresignature(id) {
      if (!HEX64.test(id)) throw new SignerError('INVALID_PARAMS', 'a presignature id is 32 bytes of hex', 400);
      if (used.has(id)) throw new SignerError('DKLS_PRESIGNATURE_USED', 'this presignature was already used; start a new signature', 409);
      used.add(id);
    },
    close,
  };
  return { store, apply };
}

export async function openThresholdStore(dir: string, logger?: { warn(obj: object, msg?: string): void }): Promise<ThresholdStore> {
  const file = path.join(dir, THRESHOLD_FILE);
  const removed = repairTornTail(file);
  if (removed > 0) logger?.warn({ file, bytesRemoved: removed }, 'incomplete final line (torn by a crash, never acknowledged) removed');
  let journal: GroupCommitJournal | undefined;
  const { store, apply } = storeOver(
    (record) => journal!.append(`${JSON.stringify(record)}\n`),
    () => journal!.close(),
  );
  let lineNo = 0;
  for await (const line of readLines(file)) {
    lineNo++;
    const record = parseRecord(line);
    if (!record) throw new Error(`${file}: line ${lineNo} is not a threshold record; refusing to guess the OT setups`);
    apply(record);
  }
  journal = await GroupCommitJournal.open(file);
  return store;
}

/** The same rules in memory, for the in-process signer of the API's tests. */
export function createMemoryThresholdStore(): ThresholdStore & { used: ReadonlySet<string> } {
  return storeOver(
    async () => {},
    async () => {},
  ).store;
}
