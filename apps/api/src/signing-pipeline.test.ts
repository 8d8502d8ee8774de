import path from 'node:path';
import {
  ApiError,
  createSigningPipeline,
  fileKekProvider,
  parseSigningInput,
  systemClock,
  type AuditStore,
  type Caller,
  type KekProvider,
  type PolicyDenial,
  type PolicyEngine,
  type SigningContext,
  type SigningIntent,
} from '@wallet/domain';
import { createLocalKeyVault } from '@wallet/domain/custody/local-vault.ts';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './testing/harness.ts';

/**
 * The stage order of the signing pipeline, over a real database, real KEKs and real wallets. The
 * policy port (which also holds the spend reservation) records when it runs; the KEK provider and the audit store are the real
 * ones, wrapped to record when the key is joined and when the row is appended.
 */
/** A reservation id with no row: the audit append's settlement finds nothing to settle. */
const RESERVATION = '00000000-0000-4000-8000-00000000a11d';

describe.each(testDatabaseKinds)('signing pipeline stages (%s)', (kind) => {
  let app: TestApp;
  let caller: Caller;
  let walletId: string;

  beforeAll(async () => {
    app = await startTestApp(kind);
    const issued = await app.createKey();
    caller = { partnerId: issued.partnerId, projectId: issued.projectId, apiKeyId: issued.apiKeyId, environment: 'development', plan: 'scale', requestId: null };
    walletId = (await app.services.wallets.create(caller, { type: 'EVM', userIdentifier: 'pipeline-stages', userIdentifierType: 'CUSTOM_ID' })).id;
  });
  afterAll(async () => {
    await app?.close();
  });

  const auditRows = () => app.database.prisma.auditLog.count({ where: { walletId, action: { startsWith: 'wallet.sign' } } });
  const signedEvents = () => app.database.prisma.event.count({ where: { projectId: caller.projectId, type: 'transaction.signed' } });

  /** A pipeline whose every stage appends to `stages`. */
  function recordingPipeline(options: { deny?: PolicyDenial[]; failAudit?: boolean; failRelease?: boolean } = {}) {
    const stages: string[] = [];
    const seen: SigningContext[] = [];
    const realKeks = fileKekProvider(path.join(app.dataDir, 'signer'));
    const keks: KekProvider = {
      current: (role) => realKeks.current(role),
      byId: (id) => {
        if (stages.at(-1) !== 'sign') stages.push('sign');
        return realKeks.byId(id);
      },
    };
    const realAudit = app.services.stores.audit;
    const audit: AuditStore = {
      async append(entry, events, spentReservationId) {
        stages.push(`audit(settles ${spentReservationId})`);
        if (options.failAudit) throw new Error('audit store unavailable');
        await realAudit.append(entry, events, spentReservationId);
      },
    };
    const policy: PolicyEngine = {
      async evaluate(intent) {
        stages.push('policy');
        seen.push(intent);
        if (options.deny) return { outcome: 'deny', deniedBy: options.deny };
        stages.push('reserve');
        return {
          outcome: 'allow',
          reservation: {
            // Settled by the audit append of the signature, in the same statement as its row.
            id: RESERVATION,
            release: async () => {
              stages.push('release');
              if (options.failRelease) throw new Error('spend store unavailable');
            },
          },
        };
      },
    };
    const pipeline = createSigningPipeline({ audit, vault: createLocalKeyVault({ keks }), clock: systemClock, policy });
    return { pipeline, stages, seen };
  }

  async function intent(body: unknown, operation: SigningIntent['operation'] = 'raw'): Promise<SigningIntent> {
    const { wallet, shares } = await app.services.wallets.loadWalletWithShares(caller, walletId);
    return {
      caller,
      wallet,
      shares,
      operation,
      action: `wallet.sign.test-${operation}`,
      chain: { walletType: 'EVM', chainId: '84532', network: null },
      transfer: { to: '0x000000000000000000000000000000000000dEaD', value: '5', tokenAddress: null },
      input: parseSigningInput('EVM', operation, body),
    };
  }

  const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (error: unknown) => error);

  it('signs in the order policy → reservation → key → audit row, which settles the reservation', async () => {
    const before = { rows: await auditRows(), events: await signedEvents() };
    const { pipeline, stages, seen } = recordingPipeline();
    const result = await pipeline.sign(await intent({ data: `0x${'11'.repeat(32)}` }));
    expect(result.response.signature).toMatch(/^[0-9a-f]{130}$/);
    expect(stages).toEqual(['policy', 'reserve', 'sign', `audit(settles ${RESERVATION})`]);
    expect(await auditRows()).toBe(before.rows + 1);
    expect(await signedEvents()).toBe(before.events + 1);
    // The ports see the intent without the encrypted shares.
    expect(Object.keys(seen[0]!)).not.toContain('shares');
    expect(seen[0]).toMatchObject({ action: 'wallet.sign.test-raw', transfer: { value: '5' }, chain: { chainId: '84532' } });
  });

  it('a denial stops before anything is reserved or signed: 403 POLICY_DENIED with deniedBy, no row, no event', async () => {
    const before = { rows: await auditRows(), events: await signedEvents() };
    const deniedBy = [{ reason: 'spend-limit-exceeded', policyId: 'pol-1', ruleId: 'rule-2' }];
    const { pipeline, stages } = recordingPipeline({ deny: deniedBy });
    const error = await failure(pipeline.sign(await intent({ data: `0x${'22'.repeat(32)}` })));
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(403);
    expect((error as ApiError).toBody()).toEqual({ code: 'POLICY_DENIED', message: expect.any(String), reason: 'spend-limit-exceeded', deniedBy });
    expect(stages).toEqual(['policy']);
    expect(await auditRows()).toBe(before.rows);
    expect(await signedEvents()).toBe(before.events);
  });

  it('a signing error releases the reservation and writes no audit row', async () => {
    const before = { rows: await auditRows(), events: await signedEvents() };
    const { pipeline, stages } = recordingPipeline();
    // 31 bytes pass the schema; the EVM signer refuses anything but 32.
    const error = await failure(pipeline.sign(await intent({ data: `0x${'44'.repeat(31)}` })));
    expect((error as ApiError).status).toBe(400);
    expect(stages).toEqual(['policy', 'reserve', 'sign', 'release']);
    expect(await auditRows()).toBe(before.rows);
    expect(await signedEvents()).toBe(before.events);
  });

  it('a failing release does not hide the signing error', async () => {
    const { pipeline, stages } = recordingPipeline({ failRelease: true });
    const error = await failure(pipeline.sign(await intent({ data: `0x${'77'.repeat(31)}` })));
    expect((error as ApiError).code).toBe('INVALID_REQUEST');
    expect(stages).toEqual(['policy', 'reserve', 'sign', 'release']);
  });

  it('a failed audit append releases the reservation too: no signature leaves without its row', async () => {
    const before = await auditRows();
    const { pipeline, stages } = recordingPipeline({ failAudit: true });
    const error = await failure(pipeline.sign(await intent({ data: `0x${'55'.repeat(32)}` })));
    expect((error as Error).message).toBe('audit store unavailable');
    expect(stages).toEqual(['policy', 'reserve', 'sign', `audit(settles ${RESERVATION})`, 'release']);
    expect(await auditRows()).toBe(before);
  });

  it('refuses a claimed wallet before the policy runs', async () => {
    const { pipeline, stages } = recordingPipeline();
    const signable = await intent({ data: `0x${'66'.repeat(32)}` });
    const error = await failure(pipeline.sign({ ...signable, wallet: { ...signable.wallet, claimedAt: new Date() } }));
    expect((error as ApiError).code).toBe('WALLET_ALREADY_CLAIMED');
    expect(stages).toEqual([]);
  });
});
