/**
 * The conversion of an isolated secp256k1 wallet to DKLs23 against a signer that deviates: a dealt
 * share of another key, a recovery share of another epoch, an OT setup message from another
 * conversion's session, a tampered OT message. The API refuses each before anything is written (the
 * wallet keeps its halves, its custody mode and no conversion audit row); an honest rerun converts.
 */
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { testDatabaseKinds } from '@wallet/db';
import { decodeVaultValue, DKLS_METHODS, encodeVaultValue, type EncryptedShare } from '@wallet/domain';
import { dealKeyShares } from '@wallet/threshold-ecdsa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { signingMatrix } from '../testing/signing-matrix.ts';

type Tamper = (method: string, answer: Record<string, unknown>) => Record<string, unknown>;

describe.each(testDatabaseKinds)('converting to DKLs23 against a deviating signer (%s)', (kind) => {
  let app: TestApp;
  let key: string;
  let tamper: Tamper | null = null;
  /** The signer's `step` answers of the last conversion, as sent (for a replay into another session). */
  const steps: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    app = await startTestApp(kind, {
      signerTamper: (method, result) => {
        if (method === DKLS_METHODS.step) steps.push(structuredClone(result) as Record<string, unknown>);
        if (!tamper || (method !== DKLS_METHODS.importStart && method !== DKLS_METHODS.step)) return result;
        return encodeVaultValue(tamper(method, decodeVaultValue(result) as Record<string, unknown>));
      },
    });
    key = (await app.createKey()).apiKey;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
  });

  const create = async (type: 'EVM' | 'COSMOS') => (await app.request('POST', '/v1/wallets', { key, body: { type, userIdentifier: `peer-${type}-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body;
  const roles = async (id: string) => ((await app.services.stores.wallets.findShares(id)) as EncryptedShare[]).map((s) => `${s.role}@${s.epoch}`).sort();
  const conversions = (id: string) => app.database.prisma.auditLog.count({ where: { walletId: id, action: 'wallet.custody.convert' } });
  async function refused(id: string, pattern: RegExp) {
    await expect(app.services.keyMaintenance!.convertWallet(id)).rejects.toMatchObject({ code: 'CONVERSION_FAILED', message: expect.stringMatching(pattern) });
    expect(await roles(id)).toEqual(['service@0', 'user@0']);
    expect((await app.services.stores.wallets.findById(id))?.custodyMode).toBe('isolated');
    expect(await conversions(id)).toBe(0);
  }

  it('refuses a dealt share of another key and a recovery share of another epoch; the honest rerun converts and signs', async () => {
    const wallet = await create('COSMOS');
    tamper = (method, answer) => {
      if (method !== DKLS_METHODS.importStart) return answer;
      const other = dealKeyShares(secp256k1.utils.randomSecretKey());
      const apiShare = other.shares[0].encode();
      for (const s of other.shares) s.wipe();
      return { ...answer, apiShare };
    };
    await refused(wallet.id, /not participant 1's share of this wallet's key/);
    tamper = (method, answer) => (method === DKLS_METHODS.importStart ? { ...answer, recoveryShare: { ...(answer.recoveryShare as object), epoch: 7 } } : answer);
    await refused(wallet.id, /another role or epoch/);

    tamper = null;
    const halves = (await app.services.stores.wallets.findShares(wallet.id)) as EncryptedShare[];
    expect(await app.services.keyMaintenance!.convertWallet(wallet.id)).toMatchObject({ outcome: 'converted', address: wallet.address, custodyMode: 'threshold' });
    // The halves replayed to deal the key again (a compromised API) are refused: their epoch is retired.
    const vaultWallet = { id: wallet.id, type: 'COSMOS', scheme: 'DKLS', address: wallet.address, publicKey: wallet.publicKey };
    await expect(app.signer.call(DKLS_METHODS.importStart, encodeVaultValue({ wallet: vaultWallet, shares: halves }))).rejects.toMatchObject({ code: 'SHARE_EPOCH_RETIRED' });
    expect(await roles(wallet.id)).toEqual(['dkls-api@1', 'dkls-signer@1', 'recovery-signer@1']);
    expect(await conversions(wallet.id)).toBe(1);
    const cell = signingMatrix.find((c) => c.type === 'COSMOS' && c.route === 'sign-message')!;
    const body = await cell.body(wallet);
    const signed = await app.request('POST', `/v1/wallets/${wallet.id}/sign-message`, { key, body });
    expect(signed.status).toBe(200);
    expect(await cell.verify(wallet, signed.body, body)).toBe(true);
  }, 60_000);

  it("aborts on an OT message replayed from another conversion's session and on a tampered one, writing nothing", async () => {
    const [first, second] = [await create('EVM'), await create('EVM')];
    steps.length = 0;
    expect(await app.services.keyMaintenance!.convertWallet(first.id)).toMatchObject({ outcome: 'converted' });
    const recorded = decodeVaultValue(steps[0]) as { messages: Uint8Array[] };
    // The first conversion's signer messages, in the second's session: bound to another session id.
    tamper = (method, answer) => (method === DKLS_METHODS.step && answer.done === false ? { ...answer, messages: recorded.messages } : answer);
    await refused(second.id, /threshold-ecdsa: session aborted/);
    // A well-formed message whose last byte was changed (a wrong OT opening): the consistency check fails.
    let flipped = false;
    tamper = (method, answer) => {
      if (method !== DKLS_METHODS.step || answer.done !== false || flipped) return answer;
      flipped = true;
      const messages = answer.messages as Uint8Array[];
      messages[messages.length - 1]![messages[messages.length - 1]!.length - 1]! ^= 1;
      return answer;
    };
    await refused(second.id, /threshold-ecdsa: session aborted/);
    tamper = null;
    expect(await app.services.keyMaintenance!.convertWallet(second.id)).toMatchObject({ outcome: 'converted', address: second.address });
  }, 60_000);
});
