import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { decodeVaultValue, dklsDkgContext, DKLS_METHODS, encodeVaultValue, ensureLocalRecoveryKey, fileKekProvider, SIGNER_KEK_ROLES, type EncryptedShare } from '@wallet/domain';
import { threadKeygenParty } from '@wallet/domain/custody/dkls-party-host.ts';
import { createPresignThread } from '@wallet/domain/custody/dkls-presign-host.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { createSignerLimits } from '../limits/limits.ts';
import { createMemoryThresholdStore } from '../store/threshold-store.ts';
import { createMemorySignerStore } from './in-process.ts';
import { createThresholdHandlers } from './threshold-handlers.ts';

type Answer = { sessionId: string; messages: Uint8Array[]; done: boolean; sealed?: { signerShare: EncryptedShare; otSetupId: string } | null };

describe("the signer's key ceremonies in its presigning thread", () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'signer-dkls-thread-'));
  const signerThread = createPresignThread();
  const apiThread = createPresignThread();
  afterAll(async () => {
    await Promise.all([signerThread.close(), apiThread.close()]);
    rmSync(dir, { recursive: true, force: true });
  });
  const store = createMemorySignerStore();
  const threshold = createMemoryThresholdStore();
  const handlers = createThresholdHandlers({
    keks: fileKekProvider(dir, SIGNER_KEK_ROLES),
    recovery: ensureLocalRecoveryKey(path.join(dir, 'recovery')),
    epochs: store,
    log: store,
    limits: createSignerLimits({ perWalletPerMinute: 1000, nativeValueCaps: {} }),
    capsValue: () => false,
    threshold,
    sessionTtlMs: 1000,
    presignThread: signerThread,
  });
  const context = { requestId: 'r', client: 'wallet-api' };
  const call = async (method: string, params: unknown) => decodeVaultValue(await handlers[method]!(encodeVaultValue(params), context)) as Answer;
  const start = async (walletId: string) => {
    const party = threadKeygenParty(apiThread, 1, dklsDkgContext(walletId));
    return { party, answer: await call(DKLS_METHODS.keygenStart, { walletId, messages: await party.first() }) };
  };

  it('runs a key generation there, sealing participant 2 from the bytes, the entry gone once done', async () => {
    const walletId = randomUUID();
    const started = await start(walletId);
    const { party } = started;
    let { answer } = started;
    expect(await signerThread.count()).toBe(1);
    while (!answer.done) answer = await call(DKLS_METHODS.step, { sessionId: answer.sessionId, walletId, messages: await party.step(answer.messages) });
    await party.step(answer.messages);
    expect(party.done).toBe(true);
    expect(answer.sealed?.otSetupId).toBe(party.result().otSetupId);
    expect(answer.sealed?.signerShare).toMatchObject({ role: 'dkls-signer', epoch: 0 });
    expect(threshold.setupOf(walletId)?.otSetupId).toBe(party.result().otSetupId);
    party.abandon();
    expect(await signerThread.count()).toBe(0);
  });

  it("drops an expired session's thread entry, and a deviating message ends the session and its entry with DKLS_ABORTED", async () => {
    const expired = randomUUID();
    const first = await start(expired);
    expect(await signerThread.count()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // Swept (by the next put or the timer): its thread entry is dropped.
    const walletId = randomUUID();
    const { party, answer } = await start(walletId);
    expect(await signerThread.count()).toBe(1);
    await expect(call(DKLS_METHODS.step, { sessionId: first.answer.sessionId, walletId: expired, messages: await first.party.step(first.answer.messages) })).rejects.toMatchObject({ code: 'FROST_SESSION_UNKNOWN' });
    first.party.abandon();

    const messages = await party.step(answer.messages);
    messages[messages.length - 1]![5]! ^= 1;
    await expect(call(DKLS_METHODS.step, { sessionId: answer.sessionId, walletId, messages })).rejects.toMatchObject({ code: 'DKLS_ABORTED', status: 409 });
    expect(await signerThread.count()).toBe(0);
    party.abandon();
    expect(await apiThread.count()).toBe(0);
  });

  it('drops an expired session without traffic too (the table sweeps on a timer)', async () => {
    const idle = await start(randomUUID());
    expect(await signerThread.count()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 2200));
    expect(await signerThread.count()).toBe(0);
    idle.party.abandon();
  });
});
