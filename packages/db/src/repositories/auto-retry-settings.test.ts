import { randomUUID } from 'node:crypto';
import { createAutoRetrySettings, type AutoRetrySettings, type PolicyScope } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createAutoRetrySettingsStore } from './auto-retry-settings.ts';

const operator = { type: 'operator', id: null } as const;
const noon = new Date('2027-03-01T12:00:00.000Z');

describe.each(testDatabaseKinds)('managed retry project default (%s)', (kind) => {
  let database: Database;
  let settings: AutoRetrySettings;

  const project = async (): Promise<PolicyScope> => {
    const partnerId = randomUUID();
    const projectId = randomUUID();
    await database.prisma.partner.create({ data: { id: partnerId, name: `partner-${partnerId}` } });
    await database.prisma.project.create({ data: { id: projectId, partnerId, name: `p-${projectId}` } });
    return { projectId, environment: 'development', actor: operator };
  };

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    settings = createAutoRetrySettings({ store: createAutoRetrySettingsStore(database), clock: { now: () => noon } });
  });
  afterAll(async () => {
    await database?.close();
  });

  it('has no default until written, then answers what was saved per environment, with an audit row for each change', async () => {
    const scope = await project();
    expect(await settings.projectDefault(scope)).toBeNull();
    expect(await settings.get(scope)).toEqual({ projectId: scope.projectId, environment: 'development', enabled: true, maxFeePerGas: null, updatedAt: null, updatedBy: null });

    const max = ((1n << 256n) - 1n).toString();
    expect(await settings.change(scope, { enabled: false, maxFeePerGas: max })).toMatchObject({ enabled: false, maxFeePerGas: max, updatedAt: noon.toISOString(), updatedBy: operator });
    expect(await settings.projectDefault(scope)).toEqual({ enabled: false, maxFeePerGas: max });
    await settings.change(scope, { enabled: true, maxFeePerGas: null });
    expect(await settings.projectDefault(scope)).toEqual({ enabled: true, maxFeePerGas: null });
    expect(await settings.projectDefault({ ...scope, environment: 'production' })).toBeNull();

    const audit = await database.prisma.auditLog.findMany({ where: { projectId: scope.projectId, action: 'auto_retry.change' }, orderBy: { id: 'asc' } });
    expect(audit.map((a) => a.details)).toEqual([
      { environment: 'development', actor: operator, enabled: false, maxFeePerGas: max },
      { environment: 'development', actor: operator, enabled: true, maxFeePerGas: null },
    ]);
  });

  it('refuses a ceiling that is not positive wei, and strict keys, writing nothing; the database refuses a zero ceiling too', async () => {
    const scope = await project();
    for (const input of [{ enabled: true, maxFeePerGas: '0' }, { enabled: true, maxFeePerGas: '1e9' }, { enabled: true }, { enabled: true, maxFeePerGas: null, extra: 1 }]) {
      await expect(settings.change(scope, input)).rejects.toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    }
    expect(await settings.projectDefault(scope)).toBeNull();
    await expect(
      database.query(`INSERT INTO auto_retry_settings (project_id, environment, enabled, max_fee_per_gas, updated_at, updated_by_type) VALUES ($1::uuid, 'development', true, 0, now(), 'operator')`, [scope.projectId]),
    ).rejects.toThrow(/auto_retry_settings_max_fee_per_gas_check/);
  });
});
