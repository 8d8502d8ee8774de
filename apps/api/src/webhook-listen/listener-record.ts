import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { listenerRecordFile, listenersDir } from './paths.ts';

/** The endpoint configuration a listener replaced (no secret: the secret is never changed). */
export interface PreviousEndpoint {
  url: string;
  eventTypes: string[];
  enabled: boolean;
}

/**
 * Written before a listener points the key's endpoint at itself and removed once it restored it:
 * a record left behind names a listener that died without restoring (SIGKILL, a crash).
 */
export interface ListenerRecord {
  pid: number;
  apiKeyId: string;
  /** The listener's URL, as set on the endpoint. */
  url: string;
  /** null: the key had no endpoint and the listener created one. */
  previous: PreviousEndpoint | null;
  startedAt: string;
}

export function writeListenerRecord(dataDir: string, record: ListenerRecord): void {
  mkdirSync(listenersDir(dataDir), { recursive: true, mode: 0o700 });
  writeFileSync(listenerRecordFile(dataDir, record.apiKeyId), `${JSON.stringify(record)}\n`, { mode: 0o600 });
}

export function readListenerRecord(dataDir: string, apiKeyId: string): ListenerRecord | null {
  try {
    return JSON.parse(readFileSync(listenerRecordFile(dataDir, apiKeyId), 'utf8')) as ListenerRecord;
  } catch {
    return null;
  }
}

/** Every record in the data directory (each names its API key). */
export function listListenerRecords(dataDir: string): ListenerRecord[] {
  let names: string[];
  try {
    names = readdirSync(listenersDir(dataDir));
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith('.json'))
    .map((name) => readListenerRecord(dataDir, name.slice(0, -'.json'.length)))
    .filter((record): record is ListenerRecord => record !== null);
}

export function removeListenerRecord(dataDir: string, apiKeyId: string): void {
  rmSync(listenerRecordFile(dataDir, apiKeyId), { force: true });
}

/** Whether the process that wrote the record still runs (another listener for the same key). */
export function isRunning(pid: number): boolean {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
