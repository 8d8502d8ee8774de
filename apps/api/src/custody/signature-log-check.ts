/**
 * `npm run custody -- verify-log`: the signer's signature log checked against the API's audit log.
 * The signer verifies its hash chain; its entries are then paired with the audit rows of wallet
 * signatures (wallet id, digest, request id). A log entry without an audit row is a signature the
 * API never recorded (a process killed between the two, or a signer used behind the API's back); an
 * audit row without a log entry is a signature the signer never made. Audit rows older than the
 * log's first entry (signatures from before the signer kept a log) are not compared.
 */
import type { Database } from '@wallet/db';
import { compareWithAudit, type LogEntry } from '@wallet/signer/signature-log';
import type { SignerCaller } from './remote-vault.ts';

const LISTED = 20;

export async function checkSignatureLog(signer: SignerCaller, database: Database) {
  const chain = await signer.call<{ ok: boolean; entries: number; firstBadSeq?: number; reason?: string }>('log.verify', {});
  const entries: LogEntry[] = [];
  for (let afterSeq = 0; ; ) {
    const page = await signer.call<{ entries: LogEntry[]; next: number | null }>('log.read', { afterSeq, limit: 1000 });
    entries.push(...page.entries);
    if (page.next === null) break;
    afterSeq = page.next;
  }
  const walletEntries = entries.filter((e) => !e.walletId.startsWith('service-key:'));
  const since = entries[0] ? new Date(entries[0].time) : new Date();
  const rows = await database.query<{ wallet_id: string; digest: string; request_id: string | null; action: string; created_at: Date }>(
    `SELECT wallet_id, details->>'digest' AS digest, request_id, action, created_at FROM audit_log
      WHERE action LIKE 'wallet.sign.%' AND details->>'digest' IS NOT NULL AND created_at >= $1 ORDER BY id`,
    [new Date(since.getTime() - 60_000)],
  );
  const { missingInAudit, missingInLog } = compareWithAudit(
    walletEntries,
    rows.map((row) => ({ walletId: row.wallet_id, digest: row.digest, requestId: row.request_id, action: row.action, at: new Date(row.created_at).toISOString() })),
  );
  return {
    chain,
    walletSignatures: walletEntries.length,
    serviceKeySignatures: entries.length - walletEntries.length,
    matched: walletEntries.length - missingInAudit.length,
    missingInAudit: { count: missingInAudit.length, first: missingInAudit.slice(0, LISTED) },
    missingInLog: {
      count: missingInLog.length,
      first: missingInLog.slice(0, LISTED),
    },
    ok: chain.ok && missingInAudit.length === 0 && missingInLog.length === 0,
  };
}
