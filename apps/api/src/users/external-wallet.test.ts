import { testDatabaseKinds } from '@wallet/db';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../cli/commands.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

describe.each(testDatabaseKinds)('user side: verifying an external wallet (%s)', (kind) => {
  let app: TestApp;
  let projectId: string;
  beforeAll(async () => {
    app = await startTestApp(kind);
    projectId = (await app.createKey()).projectId;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('records user.external_wallet_verified only for a valid signature of the challenge', async () => {
    const identifier = `ext-${Math.random()}@example.com`;
    const user = { projectId, identifier, identifierType: 'EMAIL' };
    await expect(runCommand(app.services, 'users.wallet-challenge', { ...user, address: '0x000000000000000000000000000000000000dEaD' })).rejects.toMatchObject({ status: 404 });
    const { userId } = (await runCommand(app.services, 'users.signup', user)) as { userId: string };
    const account = privateKeyToAccount(generatePrivateKey());
    const { message } = (await runCommand(app.services, 'users.wallet-challenge', { ...user, address: account.address.toLowerCase() })) as { message: string };
    expect(message).toBe(`Link wallet ${account.address} to user ${userId}`);
    const stranger = privateKeyToAccount(generatePrivateKey());
    for (const signature of [await stranger.signMessage({ message }), await account.signMessage({ message: 'something else' }), '0x1234']) {
      await expect(runCommand(app.services, 'users.verify-wallet', { ...user, address: account.address, signature })).rejects.toMatchObject({ status: 400 });
    }
    const verified = await runCommand(app.services, 'users.verify-wallet', { ...user, address: account.address, signature: await account.signMessage({ message }), walletProvider: 'metamask' });
    expect(verified).toMatchObject({ userId, walletAddress: account.address });
    const events = await app.database.prisma.event.findMany({ where: { projectId, type: 'user.external_wallet_verified' } });
    expect(events).toHaveLength(1);
    expect(events[0]!.id).toMatch(/^evt_/);
    expect(Object.keys(events[0]!.data as object).sort()).toEqual(['userId', 'verifiedAt', 'walletAddress', 'walletProvider']);
    expect(events[0]!.data).toMatchObject({ userId, walletAddress: account.address, walletProvider: 'metamask' });
  });
});
