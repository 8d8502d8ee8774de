import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from './database.ts';

const uuid = () => randomUUID();
const now = new Date();

/**
 * One INSERT per enumerated column, every NOT NULL column filled. The row's CHECK constraints run
 * before its foreign keys (those are checked at the end of the statement), so a good value either
 * inserts or fails on a foreign key (23503), and a bad one fails on the CHECK (23514).
 */
const rows: { table: string; column: string; good: string; values: () => Record<string, unknown> }[] = [
  { table: 'idempotency_records', column: 'state', good: 'running', values: () => ({ project_id: uuid(), key: uuid(), request_hash: 'h', expires_at: now }) },
  { table: 'api_keys', column: 'environment', good: 'production', values: () => ({ id: uuid(), project_id: uuid(), plan: 'growth', key_prefix: 'p', key_hash: uuid() }) },
  { table: 'api_keys', column: 'plan', good: 'scale', values: () => ({ id: uuid(), project_id: uuid(), environment: 'development', key_prefix: 'p', key_hash: uuid() }) },
  ...(['type', 'scheme', 'status', 'user_identifier_type', 'custody'] as const).map((column) => ({
    table: 'wallets',
    column,
    good: { type: 'SUI', scheme: 'ED25519', status: 'creating', user_identifier_type: 'FARCASTER', custody: 'client' }[column],
    values: () => {
      const all: Record<string, unknown> = { id: uuid(), project_id: uuid(), type: 'EVM', scheme: 'DKLS', address: '0x0', public_key: 'k', status: 'ready', user_identifier: 'u', user_identifier_type: 'EMAIL', custody: 'api_key', updated_at: now };
      delete all[column];
      return all;
    },
  })),
  { table: 'key_shares', column: 'role', good: 'user', values: () => ({ wallet_id: uuid(), kek_id: 'k', iv: Buffer.alloc(12), ciphertext: Buffer.alloc(16) }) },
  { table: 'users', column: 'identifier_type', good: 'PHONE', values: () => ({ id: uuid(), project_id: uuid(), identifier: 'u' }) },
  ...(['status', 'intent_kind', 'wallet_type', 'failure_stage', 'execution_mode'] as const).map((column) => ({
    table: 'transaction_records',
    column,
    good: { status: 'reverted', intent_kind: 'sign_transaction', wallet_type: 'SOLANA', failure_stage: 'monitor_timeout', execution_mode: 'sponsored' }[column],
    values: () => {
      const all: Record<string, unknown> = { id: uuid(), project_id: uuid(), partner_id: uuid(), wallet_id: uuid(), wallet_type: 'EVM', intent_kind: 'transfer', status: 'pending', from_address: '0x0', updated_at: now };
      delete all[column];
      return all;
    },
  })),
  { table: 'webhook_deliveries', column: 'status', good: 'delivered', values: () => ({ event_id: uuid(), endpoint_id: uuid(), event_seq: 1 }) },
  { table: 'staff_accounts', column: 'role', good: 'support', values: () => ({ id: uuid(), partner_id: uuid(), email: `${uuid()}@x.test`, password_hash: 'h' }) },
  { table: 'policies', column: 'environment', good: 'production', values: () => ({ id: uuid(), project_id: uuid(), policy_id: 'p', latest_version: 1 }) },
  ...(['status', 'wallet_type', 'created_by_type', 'deactivated_by_type'] as const).map((column) => ({
    table: 'policy_versions',
    column,
    good: { status: 'active', wallet_type: 'SUI', created_by_type: 'operator', deactivated_by_type: 'staff' }[column],
    values: () => ({
      policy_key: uuid(),
      version: 1,
      document: '{}',
      status: 'inactive',
      wallet_type: 'EVM',
      created_at: now,
      created_by_type: 'api_key',
      deactivated_at: column === 'status' ? null : now,
    }),
  })),
  {
    table: 'policy_spend_meters',
    column: 'environment',
    good: 'production',
    values: () => ({ project_id: uuid(), api_key_id: uuid(), wallet_id: uuid(), network: '84532', asset: 'native', window_ms: 60_000, window_start: now }),
  },
  ...(['status', 'environment'] as const).map((column) => ({
    table: 'policy_spend_reservations',
    column,
    good: { status: 'reserved', environment: 'production' }[column],
    values: () => ({ id: uuid(), project_id: uuid(), environment: 'development', status: 'reserved', charges: '[]' }),
  })),
  ...(['environment', 'actor_type'] as const).flatMap((column) => [
    {
      table: 'authorization_scope_assignment_revisions',
      column,
      good: { environment: 'production', actor_type: 'operator' }[column],
      values: () => ({ id: uuid(), project_id: uuid(), environment: 'development', scope_id: 'org', user_id: uuid(), revision: 1, assignments: '[]', actor_type: 'api_key', created_at: now }),
    },
    {
      table: 'wallet_authorization_scope_revisions',
      column,
      good: { environment: 'production', actor_type: 'staff' }[column],
      values: () => ({ id: uuid(), project_id: uuid(), environment: 'development', wallet_id: uuid(), revision: 1, actor_type: 'api_key', created_at: now }),
    },
  ]),
  { table: 'authorization_scope_assignments', column: 'environment', good: 'production', values: () => ({ project_id: uuid(), scope_id: 'org', user_id: uuid(), revision: 1, assignments: '[]', updated_at: now }) },
  { table: 'wallet_authorization_scopes', column: 'environment', good: 'production', values: () => ({ project_id: uuid(), wallet_id: uuid(), revision: 1, updated_at: now }) },
  ...(['environment', 'updated_by_type'] as const).map((column) => ({
    table: 'permissions_extensions',
    column,
    good: { environment: 'production', updated_by_type: 'operator' }[column],
    values: () => ({ project_id: uuid(), environment: 'development', enabled: true, updated_at: now, updated_by_type: 'api_key' }),
  })),
  ...(['environment', 'updated_by_type'] as const).map((column) => ({
    table: 'approval_configurations',
    column,
    good: { environment: 'production', updated_by_type: 'staff' }[column],
    values: () => ({ project_id: uuid(), environment: 'development', scope_id: 'org', policy_id: 'p', policy_version: 1, requirement_id: 'r', revision: 1, values: '{}', updated_at: now, updated_by_type: 'api_key' }),
  })),
  ...(['environment', 'actor_type'] as const).map((column) => ({
    table: 'approval_configuration_revisions',
    column,
    good: { environment: 'production', actor_type: 'operator' }[column],
    values: () => ({ id: uuid(), project_id: uuid(), environment: 'development', scope_id: 'org', policy_id: 'p', policy_version: 1, requirement_id: 'r', revision: 1, values: '{}', actor_type: 'api_key', created_at: now }),
  })),
  ...(['status', 'environment'] as const).map((column) => ({
    table: 'approval_cases',
    column,
    good: { status: 'invalidated', environment: 'production' }[column],
    values: () => ({
      id: uuid(),
      project_id: uuid(),
      environment: 'development',
      wallet_id: uuid(),
      api_key_id: uuid(),
      case_key: uuid(),
      request_hash: 'h',
      requirements: '[]',
      scope_id: 'org',
      binding_revision: 1,
      stages: '[]',
      status: 'pending',
      request: '{}',
      expires_at: now,
      created_at: now,
    }),
  })),
  { table: 'approval_case_decisions', column: 'decision', good: 'reject', values: () => ({ case_id: uuid(), stage_id: 's', user_id: uuid(), created_at: now }) },
];

describe.each(testDatabaseKinds)('CHECK constraints on enumerated columns (%s)', (kind) => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase(kind);
  });
  afterAll(() => db?.close());

  const insert = async (table: string, values: Record<string, unknown>) => {
    const columns = Object.keys(values);
    const sql = `INSERT INTO ${table} (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})`;
    try {
      await db.query(sql, Object.values(values));
      return 'inserted';
    } catch (error) {
      return String((error as { code?: unknown }).code);
    }
  };

  it.each(rows.map((r) => [`${r.table}.${r.column}`, r] as const))('%s refuses a value outside its set', async (_name, row) => {
    expect(await insert(row.table, { ...row.values(), [row.column]: 'bogus' })).toBe('23514');
    expect(['inserted', '23503']).toContain(await insert(row.table, { ...row.values(), [row.column]: row.good }));
  });

  it('keeps the sponsored operation fields off legacy records', async () => {
    const record = (values: Record<string, unknown>) =>
      insert('transaction_records', { id: uuid(), project_id: uuid(), partner_id: uuid(), wallet_id: uuid(), wallet_type: 'EVM', intent_kind: 'transfer', status: 'pending', from_address: '0x0', updated_at: now, ...values });
    for (const field of ['stage', 'review_id', 'user_operation_hash', 'actual_gas_cost', 'user_operation']) {
      expect(await record({ [field]: 'x' }), field).toBe('23514');
      expect(['inserted', '23503'], field).toContain(await record({ execution_mode: 'sponsored', [field]: field === 'stage' ? 'included' : 'x' }));
    }
    expect(await record({ execution_mode: 'sponsored', stage: 'bogus' })).toBe('23514');
  });

  it('refuses malformed scope ids, revisions below 1 and non-array assignment sets; revision rows are never updated or deleted', async () => {
    const assignment = (values: Record<string, unknown>) =>
      insert('authorization_scope_assignments', { project_id: uuid(), environment: 'development', scope_id: 'org', user_id: uuid(), revision: 1, assignments: '[]', updated_at: now, ...values });
    for (const values of [{ scope_id: 'has space' }, { scope_id: 'x'.repeat(129) }, { scope_id: '' }, { revision: 0 }, { assignments: '{}' }]) {
      expect(await assignment(values), JSON.stringify(values)).toBe('23514');
    }
    expect(await assignment({ scope_id: `a.b_c:d-${'x'.repeat(120)}` })).toBe('23503');
    expect(await insert('wallet_authorization_scopes', { project_id: uuid(), environment: 'development', wallet_id: uuid(), scope_id: 'a/b', revision: 1, updated_at: now })).toBe('23514');

    const id = uuid();
    await db.query(
      `INSERT INTO authorization_scope_assignment_revisions (id, project_id, environment, scope_id, user_id, revision, assignments, actor_type, created_at) VALUES ($1, $2, 'development', 'org', $3, 1, '[]', 'operator', now())`,
      [id, uuid(), uuid()],
    );
    for (const sql of [`UPDATE authorization_scope_assignment_revisions SET revision = 2 WHERE id = $1`, `DELETE FROM authorization_scope_assignment_revisions WHERE id = $1`]) {
      await expect(db.query(sql, [id])).rejects.toMatchObject({ code: '42501' });
    }
  });

  it('refuses malformed approval configurations; their revision rows are never updated or deleted', async () => {
    const configuration = (values: Record<string, unknown>) =>
      insert('approval_configurations', {
        project_id: uuid(), environment: 'development', scope_id: 'org', policy_id: 'p', policy_version: 1, requirement_id: 'r', revision: 1, values: '{}', updated_at: now, updated_by_type: 'api_key', ...values,
      });
    for (const values of [{ scope_id: 'has space' }, { policy_version: 0 }, { revision: 0 }, { values: '[]' }, { values: '2' }]) {
      expect(await configuration(values), JSON.stringify(values)).toBe('23514');
    }
    expect(await configuration({ values: '{"finance.requiredApprovals": 2}' })).toBe('23503');
    const id = uuid();
    await db.query(
      `INSERT INTO approval_configuration_revisions (id, project_id, environment, scope_id, policy_id, policy_version, requirement_id, revision, values, actor_type, created_at)
       VALUES ($1, $2, 'development', 'org', 'p', 1, 'r', 1, '{}', 'operator', now())`,
      [id, uuid()],
    );
    expect(await insert('approval_configuration_revisions', { id: uuid(), project_id: uuid(), environment: 'development', scope_id: 'org', policy_id: 'p', policy_version: 1, requirement_id: 'r', revision: 1, values: '[]', actor_type: 'operator', created_at: now })).toBe('23514');
    for (const sql of [`UPDATE approval_configuration_revisions SET revision = 2 WHERE id = $1`, `DELETE FROM approval_configuration_revisions WHERE id = $1`]) {
      await expect(db.query(sql, [id])).rejects.toMatchObject({ code: '42501' });
    }
  });

  it('refuses a bad value written by an UPDATE too', async () => {
    const key = uuid();
    await db.prisma.idempotencyRecord.create({ data: { projectId: uuid(), key, requestHash: 'h', state: 'running', expiresAt: now } });
    await expect(db.prisma.idempotencyRecord.updateMany({ where: { key }, data: { state: 'finished' } })).rejects.toThrow(/idempotency_records_state_check/);
  });
});
