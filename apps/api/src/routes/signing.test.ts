import { Secp256k1, Secp256k1Signature, sha256 } from '@cosmjs/crypto';
import { fromHex } from '@cosmjs/encoding';
import { verifyPersonalMessageSignature } from '@mysten/sui/verify';
import { getBase58Encoder, getPublicKeyFromAddress, verifySignature, address as solanaAddress, type SignatureBytes } from '@solana/kit';
import { Keypair } from '@stellar/stellar-sdk';
import { testDatabaseKinds } from '@wallet/db';
import { recoverAddress, verifyMessage, verifyTypedData, recoverTransactionAddress, type Hex } from 'viem';
import { recoverAuthorizationAddress } from 'viem/utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';

const types = ['EVM', 'COSMOS', 'SOLANA', 'STELLAR', 'SUI'] as const;
type WalletType = (typeof types)[number];

describe.each(testDatabaseKinds)('signing over HTTP on %s', (kind) => {
  let app: TestApp;
  let key: string;
  let projectId: string;
  const wallets = {} as Record<WalletType, { id: string; address: string; publicKey: string }>;

  beforeAll(async () => {
    app = await startTestApp(kind);
    const issued = await app.createKey();
    key = issued.apiKey;
    projectId = issued.projectId;
    for (const type of types) {
      const response = await app.request('POST', '/v1/wallets', { key, body: { type, userIdentifier: `signer-${type}`, userIdentifierType: 'CUSTOM_ID' } });
      expect(response.status).toBe(201);
      wallets[type] = response.body;
    }
  });
  afterAll(async () => {
    const logs = app.logLines.join('');
    for (const secret of app.secrets()) expect(logs).not.toContain(secret);
    await app.close();
  });

  const sign = (type: WalletType, route: string, body: unknown, walletId = wallets[type].id) =>
    app.request('POST', `/v1/wallets/${walletId}/${route}`, { key, body });
  const auditCount = (walletId: string) => app.database.prisma.auditLog.count({ where: { walletId, action: { startsWith: 'wallet.sign' } } });

  it('signs a message with every wallet type, verified by the chain SDK', async () => {
    const message = 'hello from the wallet service ✓';
    const bytes = new TextEncoder().encode(message);

    const evm = await sign('EVM', 'sign-message', { message });
    expect(evm.status).toBe(200);
    expect(evm.body.signature).toMatch(/^[0-9a-f]{130}$/);
    expect(await verifyMessage({ address: wallets.EVM.address as Hex, message, signature: `0x${evm.body.signature}` })).toBe(true);

    const cosmos = await sign('COSMOS', 'sign-message', { message });
    expect(cosmos.status).toBe(200);
    const cosmosSig = Secp256k1Signature.fromFixedLength(fromHex(cosmos.body.signature));
    expect(Secp256k1.verifySignature(cosmosSig, sha256(bytes), fromHex(wallets.COSMOS.publicKey))).toBe(true);

    const solana = await sign('SOLANA', 'sign-message', { message });
    expect(solana.status).toBe(200);
    const solanaKey = await getPublicKeyFromAddress(solanaAddress(wallets.SOLANA.address));
    expect(await verifySignature(solanaKey, Buffer.from(solana.body.signature, 'hex') as unknown as SignatureBytes, bytes)).toBe(true);

    const stellar = await sign('STELLAR', 'sign-message', { message });
    expect(stellar.status).toBe(200);
    expect(Keypair.fromPublicKey(wallets.STELLAR.address).verify(Buffer.from(bytes), Buffer.from(stellar.body.signature, 'hex'))).toBe(true);

    const sui = await sign('SUI', 'sign-message', { message });
    expect(sui.status).toBe(200);
    const suiKey = await verifyPersonalMessageSignature(bytes, sui.body.signature);
    expect(suiKey.toSuiAddress()).toBe(wallets.SUI.address);
    void getBase58Encoder;
  });

  it('signs raw bytes exactly, and checks the walletType guard', async () => {
    const hash = `0x${'ab'.repeat(32)}` as Hex;
    const evm = await sign('EVM', 'sign-raw', { data: hash, walletType: 'EVM' });
    expect(evm.status).toBe(200);
    expect(await recoverAddress({ hash, signature: `0x${evm.body.signature}` })).toBe(wallets.EVM.address);
    const short = await sign('EVM', 'sign-raw', { data: '0xabcd' });
    expect(short.status).toBe(400);
    expect(short.body.message).toMatch(/32 bytes/);
    const guard = await sign('EVM', 'sign-raw', { data: hash, walletType: 'SOLANA' });
    expect(guard.status).toBe(400);
    const stellarRaw = await sign('STELLAR', 'sign-raw', { data: 'deadbeef' });
    expect(Keypair.fromPublicKey(wallets.STELLAR.address).verify(Buffer.from('deadbeef', 'hex'), Buffer.from(stellarRaw.body.signature, 'hex'))).toBe(true);
  });

  it('signs EVM transactions, typed data and authorizations', async () => {
    const tx = await sign('EVM', 'sign-transaction', {
      transaction: { to: '0x000000000000000000000000000000000000dEaD', value: '1000', chainId: 84532, type: 2, nonce: 0, gasLimit: '21000', maxFeePerGas: '2000000000', maxPriorityFeePerGas: '1000000000' },
    });
    expect(tx.status, JSON.stringify(tx.body)).toBe(200);
    expect(await recoverTransactionAddress({ serializedTransaction: tx.body.signedTransaction })).toBe(wallets.EVM.address);
    expect(tx.body.transactionId).toBeUndefined();

    const typedData = {
      domain: { name: 'Ether Mail', version: '1', chainId: 1, verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC' },
      types: {
        Person: [{ name: 'name', type: 'string' }, { name: 'wallet', type: 'address' }],
        Mail: [{ name: 'from', type: 'Person' }, { name: 'to', type: 'Person' }, { name: 'contents', type: 'string' }],
      },
      primaryType: 'Mail',
      message: {
        from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
        to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
        contents: 'Hello, Bob!',
      },
    };
    const typed = await sign('EVM', 'sign-typed-data', { typedData });
    expect(typed.status, JSON.stringify(typed.body)).toBe(200);
    expect(await verifyTypedData({ ...typedData, address: wallets.EVM.address as Hex, signature: `0x${typed.body.signature}` } as never)).toBe(true);

    const auth = await sign('EVM', 'sign-authorization', { authorization: { contractAddress: '0x000000000000000000000000000000000000bEEF', chainId: 84532, nonce: 3 } });
    expect(auth.status, JSON.stringify(auth.body)).toBe(200);
    expect([0, 1]).toContain(auth.body.yParity);
    expect(
      await recoverAuthorizationAddress({
        authorization: { address: auth.body.address, chainId: 84532, nonce: 3 },
        signature: { r: auth.body.r, s: auth.body.s, yParity: auth.body.yParity },
      }),
    ).toBe(wallets.EVM.address);
  });

  it('answers every "no" cell of the matrix with 400 and signs nothing', async () => {
    const noCells: [WalletType, string][] = [
      ['COSMOS', 'sign-transaction'],
      ...(['COSMOS', 'SOLANA', 'STELLAR', 'SUI'] as const).flatMap((t) => [[t, 'sign-typed-data'], [t, 'sign-authorization']] as [WalletType, string][]),
    ];
    for (const [type, route] of noCells) {
      const before = await auditCount(wallets[type].id);
      const response = await sign(type, route, { transaction: 'AA==', typedData: {}, authorization: {} });
      expect(response.status, `${type} ${route}`).toBe(400);
      expect(response.body.code).toBe('INVALID_REQUEST');
      expect(response.body.signature).toBeUndefined();
      expect(await auditCount(wallets[type].id)).toBe(before);
    }
    const cosmos = await sign('COSMOS', 'sign-transaction', { transaction: 'AA==' });
    expect(cosmos.body.message).toContain('sign-raw');
  });

  it('answers bad input with 400 and no audit row', async () => {
    const cases: [WalletType, string, unknown][] = [
      ['EVM', 'sign-message', {}],
      ['EVM', 'sign-message', { message: 42 }],
      ['EVM', 'sign-message', { message: 'x', extra: 1 }],
      ['EVM', 'sign-message', { message: 'x'.repeat(70_000) }],
      ['SOLANA', 'sign-raw', { data: 'abc' }],
      ['SOLANA', 'sign-raw', { data: 'zz' }],
      ['SOLANA', 'sign-transaction', { transaction: '%%%not-base64', network: 'SOLANA_DEVNET' }],
      ['STELLAR', 'sign-transaction', { transaction: 'AAAA', networkPassphrase: 'Test SDF Network ; September 2015' }],
      ['SUI', 'sign-transaction', { transaction: 'AAAA' }],
      ['EVM', 'sign-transaction', { broadcast: true, transaction: { to: '0x000000000000000000000000000000000000dEaD', value: '1', chainId: 84532, type: 2, nonce: 0, gasLimit: '21000', maxFeePerGas: '2', maxPriorityFeePerGas: '1' } }],
      ['EVM', 'sign-transaction', { transaction: { to: '0x000000000000000000000000000000000000dEaD', chainId: 1, type: 2, nonce: 0, gasLimit: '21000' } }],
      ['EVM', 'sign-typed-data', { typedData: { domain: {}, types: { EIP712Domain: [] }, primaryType: 'EIP712Domain', message: {} } }],
    ];
    for (const [type, route, body] of cases) {
      const before = await auditCount(wallets[type].id);
      const response = await sign(type, route, body);
      expect(response.status, `${type} ${route} ${JSON.stringify(body).slice(0, 60)}`).toBe(400);
      expect(response.body.code).toBe('INVALID_REQUEST');
      expect(await auditCount(wallets[type].id)).toBe(before);
    }
  });

  it('records a transaction.signed event per signature, chainId null for messages', async () => {
    const signedEvents = async (walletId: string) =>
      (await app.database.prisma.event.findMany({ where: { type: 'transaction.signed' }, orderBy: { createdAt: 'asc' } })).filter(
        (e) => (e.data as { walletId: string }).walletId === walletId,
      );
    const before = (await signedEvents(wallets.EVM.id)).length;
    expect((await sign('EVM', 'sign-message', { message: 'hello' })).status).toBe(200);
    const tx = { to: '0x000000000000000000000000000000000000dEaD', value: '1', chainId: 8453, type: 2, nonce: 0, gasLimit: '21000', maxFeePerGas: '2', maxPriorityFeePerGas: '1' };
    expect((await sign('EVM', 'sign-transaction', { transaction: tx })).status).toBe(200);
    expect((await sign('EVM', 'sign-message', {})).status).toBe(400);
    const events = (await signedEvents(wallets.EVM.id)).slice(before);
    expect(events.map((e) => (e.data as { chainId: string | null }).chainId)).toEqual([null, '8453']);
    for (const e of events) {
      expect(e.id).toMatch(/^evt_/);
      expect(Object.keys(e.data as object).sort()).toEqual(['chainId', 'signedAt', 'userId', 'walletAddress', 'walletId']);
      expect(e.data).toMatchObject({ userId: null, walletId: wallets.EVM.id, walletAddress: wallets.EVM.address });
    }
  });

  it('appends an audit row per signature with the digest and no secret', async () => {
    const before = await auditCount(wallets.SUI.id);
    const response = await sign('SUI', 'sign-raw', { data: '0102030405' });
    expect(response.status).toBe(200);
    const rows = await app.database.prisma.auditLog.findMany({ where: { walletId: wallets.SUI.id, action: 'wallet.sign.sign-raw' } });
    expect(await auditCount(wallets.SUI.id)).toBe(before + 1);
    const row = rows.at(-1)!;
    expect(row.requestId).toBe(response.headers.get('x-request-id'));
    expect((row.details as { digest: string }).digest).toMatch(/^[0-9a-f]{64}$/);
    expect((row.details as { kekIds: string[] }).kekIds).toHaveLength(2);
    const text = JSON.stringify({ ...row, id: String(row.id) });
    for (const secret of app.secrets()) expect(text).not.toContain(secret);
  });

  it("refuses another project's wallet with 404 and a claimed wallet with 409", async () => {
    const stranger = (await app.createKey()).apiKey;
    const foreign = await app.request('POST', `/v1/wallets/${wallets.EVM.id}/sign-message`, { key: stranger, body: { message: 'x' } });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ code: 'NOT_FOUND', message: 'Wallet not found' });

    const claimedWallet = await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: 'claim-me@example.com', userIdentifierType: 'EMAIL' } });
    const signup = await app.services.users.signUp({ projectId, identifier: 'Claim-Me@example.com', identifierType: 'EMAIL' });
    expect(signup.created).toBe(true);
    expect(signup.claimedWalletIds).toEqual([claimedWallet.body.id]);
    for (const route of ['sign-message', 'sign-raw', 'sign-transaction', 'sign-typed-data', 'sign-authorization']) {
      const response = await app.request('POST', `/v1/wallets/${claimedWallet.body.id}/${route}`, { key, body: { message: 'x' } });
      expect(response.status, route).toBe(409);
      expect(response.body.code).toBe('WALLET_ALREADY_CLAIMED');
    }
    expect(await auditCount(claimedWallet.body.id)).toBe(0);
    const events = await app.database.prisma.event.findMany({ where: { projectId, type: { in: ['user.created', 'wallet.pregen_claimed'] } }, orderBy: { createdAt: 'asc' } });
    expect(events.map((e) => e.type)).toEqual(['user.created', 'wallet.pregen_claimed']);
    expect(events[1]!.data).toMatchObject({ userId: signup.userId, walletId: claimedWallet.body.id, walletAddress: claimedWallet.body.address, walletType: 'EVM' });
    expect(events[0]!.id).toMatch(/^evt_/);
    const again = await app.services.users.signUp({ projectId, identifier: 'claim-me@example.com', identifierType: 'EMAIL' });
    expect(again).toMatchObject({ userId: signup.userId, created: false, claimedWalletIds: [] });
    expect(await app.database.prisma.event.count({ where: { projectId, type: { in: ['user.created', 'wallet.pregen_claimed'] } } })).toBe(2);
  });
});
