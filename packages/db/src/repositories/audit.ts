import type { AuditEntry, AuditStore, NewEvent, SignatureWrite } from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';

export function auditData(entry: AuditEntry): Prisma.AuditLogCreateInput {
  return { ...entry, details: entry.details as Prisma.InputJsonObject };
}

export function createAuditStore({ query }: Database): AuditStore {
  return {
    // On every signing request's path: one statement on the driver, with the events it causes and
    // the settlement of the signature's spend reservation (policy_spend_settle, see its migration).
    async append(entry, events = [], spentReservationId = null) {
      const values: unknown[] = [entry.projectId, entry.apiKeyId, entry.walletId, entry.requestId, entry.action, JSON.stringify(entry.details)];
      const parts = [`audit AS (INSERT INTO audit_log (project_id, api_key_id, wallet_id, request_id, action, details) VALUES ($1, $2, $3, $4, $5, $6))`];
      if (events.length > 0) {
        values.push(
          events.map((e) => e.id),
          events.map((e) => e.projectId),
          events.map((e) => e.type),
          events.map((e) => JSON.stringify(e.data)),
          events.map((e) => e.transactionId ?? null),
        );
        parts.push(`events AS (INSERT INTO events (id, project_id, type, data, transaction_id) SELECT * FROM unnest($7::text[], $8::uuid[], $9::text[], $10::jsonb[], $11::uuid[]))`);
      }
      let settle = 'SELECT 1';
      if (spentReservationId) {
        values.push(spentReservationId);
        settle = `SELECT policy_spend_settle($${values.length}::uuid, 'spent')`;
      }
      await query(`WITH ${parts.join(', ')} ${settle}`, values);
    },
  };
}

const signaturesOf = (signature: SignatureWrite | SignatureWrite[]) => (Array.isArray(signature) ? signature : [signature]);

/** The events of signatures, in order (for a statement that writes them before its record's own events). */
export const signatureEvents = (signature: SignatureWrite | SignatureWrite[] | undefined): NewEvent[] => (signature ? signaturesOf(signature).flatMap((s) => s.events) : []);

/**
 * The audit rows, events and spend settlements of signatures as CTEs of the statement that records
 * what was signed (`signature_audit`, `signature_events`, `signature_spent`), written only when the
 * CTE named `saved` returned a row. `events: false` leaves the events to the statement's own events
 * CTE (`signatureEvents` first, so webhooks see `transaction.signed` before what the record causes).
 * The statement's final SELECT must read `signature_spent` (e.g. `CROSS JOIN signature_spent`, one
 * row), or the settlements would not run. Values are appended to `values`.
 */
export function signatureWrittenWith(signature: SignatureWrite | SignatureWrite[], values: unknown[], saved = 'saved', { events: withEvents = true } = {}): string {
  const signatures = signaturesOf(signature);
  const audits = signatures.map((s) => s.audit);
  const events = withEvents ? signatureEvents(signature) : [];
  const at = values.length;
  values.push(
    audits.map((a) => a.projectId),
    audits.map((a) => a.apiKeyId),
    audits.map((a) => a.walletId),
    audits.map((a) => a.requestId),
    audits.map((a) => a.action),
    audits.map((a) => JSON.stringify(a.details)),
    signatures.flatMap((s) => (s.spentReservationId ? [s.spentReservationId] : [])),
    events.map((e) => e.id),
    events.map((e) => e.projectId),
    events.map((e) => e.type),
    events.map((e) => JSON.stringify(e.data)),
    events.map((e) => e.transactionId ?? null),
  );
  const p = (n: number) => `$${at + n}`;
  return `signature_audit AS (
    INSERT INTO audit_log (project_id, api_key_id, wallet_id, request_id, action, details)
    SELECT a.project_id, a.api_key_id, a.wallet_id, a.request_id, a.action, a.details
    FROM unnest(${p(1)}::uuid[], ${p(2)}::uuid[], ${p(3)}::uuid[], ${p(4)}::text[], ${p(5)}::text[], ${p(6)}::jsonb[]) WITH ORDINALITY
      AS a(project_id, api_key_id, wallet_id, request_id, action, details, n)
    WHERE EXISTS (SELECT 1 FROM ${saved})
    ORDER BY a.n
  ), signature_events AS (
    INSERT INTO events (id, project_id, type, data, transaction_id)
    SELECT e.id, e.project_id, e.type, e.data, e.transaction_id
    FROM unnest(${p(8)}::text[], ${p(9)}::uuid[], ${p(10)}::text[], ${p(11)}::jsonb[], ${p(12)}::uuid[]) AS e(id, project_id, type, data, transaction_id)
    WHERE EXISTS (SELECT 1 FROM ${saved})
  ), signature_spent AS (
    SELECT count(policy_spend_settle(r.id, 'spent')) AS settled
    FROM unnest(${p(7)}::uuid[]) AS r(id) WHERE EXISTS (SELECT 1 FROM ${saved})
  )`;
}
