/**
 * Offline checks of a signer store, for an operator's CLI: they read the files without taking the
 * store's lock, so they run beside a live signer (an incomplete last line is then a write in
 * progress, reported as incompleteTailBytes, not as a failure).
 */
import path from 'node:path';
import { readEntries, verifyLogFile, type LogEntry, type VerifyResult } from './signature-log.ts';
import { SIGNATURE_LOG_FILE } from './store.ts';

export type { LogEntry, VerifyResult };

export function verifySignatureLog(dir: string): Promise<VerifyResult> {
  return verifyLogFile(path.join(dir, SIGNATURE_LOG_FILE));
}

export function readSignatureLog(dir: string): AsyncIterable<LogEntry> {
  return readEntries(path.join(dir, SIGNATURE_LOG_FILE));
}

export interface AuditRow {
  walletId: string;
  /** The audit row's details.digest. */
  digest: string;
  requestId: string | null;
}

/**
 * Matches the signer's log with the API's audit rows by (walletId, digest, requestId), counting
 * repeats (the same digest signed twice needs two rows). missingInAudit: signatures the signer made
 * that the API did not record (a crash between signing and the audit append, or a signer used
 * behind the API's back); missingInLog: audit rows the signer never signed (a forged audit row).
 */
export function compareWithAudit<R extends AuditRow>(logEntries: Iterable<LogEntry>, auditRows: Iterable<R>): { missingInAudit: LogEntry[]; missingInLog: R[] } {
  const key = (r: { walletId: string; digest: string; requestId: string | null }) => JSON.stringify([r.walletId, r.digest.toLowerCase(), r.requestId ?? null]);
  const audit = new Map<string, R[]>();
  for (const row of auditRows) {
    const k = key(row);
    const list = audit.get(k) ?? [];
    list.push(row);
    audit.set(k, list);
  }
  const missingInAudit: LogEntry[] = [];
  for (const entry of logEntries) {
    const list = audit.get(key(entry));
    if (list && list.length > 0) list.shift();
    else missingInAudit.push(entry);
  }
  return { missingInAudit, missingInLog: [...audit.values()].flat() };
}
