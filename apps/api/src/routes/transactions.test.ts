import {
  address,
  appendTransactionMessageInstruction,
  appendTransactionMessageInstructions,
  createNoopSigner,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  partiallySignTransactionMessageWithSigners,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  setTransactionMessageLifetimeUsingDurableNonce,
  type Address as SolanaAddress,
  type Blockhash,
  type Nonce,
} from '@solana/kit';
import { getCreateAccountInstruction, getInitializeNonceAccountInstruction, getNonceSize, getTransferSolInstruction, SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { createChainRegistry } from '@wallet/chains';
import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@wallet/chains/devnets';
import { startRpcFaultProxy, type RpcFaultProxy } from '@wallet/chains/testing';
import { testDatabaseKinds } from '@wallet/db';
import { createPublicClient, erc20Abi, http, parseTransaction, recoverTransactionAddress, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

const EVM_CHAIN = 84532;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';

describe.each(testDatabaseKinds)('transfers, broadcasts and history (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let key: string;
  let usdc: Address;
  let usdcMint: string;
  let evm: ReturnType<typeof createPublicClient>;

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    app = await startTestApp(kind, { chains: devnets });
    key = (await app.createKey()).apiKey;
    const chains = (await app.request('GET', '/v1/chains', { key })).body.chains;
    usdc = chains[0].usdc.address;
    usdcMint = chains[1].usdc.address;
    evm = createPublicClient({ transport: http(devnets.evmRpcUrl) });
  });
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  const wallet = async (type: string, withKey = key) =>
    (await app.request('POST', '/v1/wallets', { key: withKey, body: { type, userIdentifier: `tx-${type}-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body;
  const fund = async (walletId: string, amount: string, token = 'native') => {
    const response = await app.request('POST', '/v1/local/faucet', { key, body: { walletId, amount, token } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  };
  const post = (path: string, body: unknown, headers: Record<string, string> = {}, withKey = key) => app.request('POST', path, { key: withKey, body, headers });
  const record = async (walletId: string, transactionId: string) => (await app.request('GET', `/v1/wallets/${walletId}/transactions/${transactionId}`, { key })).body;
  const receipt = (hash: string) => evm.waitForTransactionReceipt({ hash: hash as Hex, pollingInterval: 100 });

  it('sends native ETH: response, header, record and the balance on chain', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    const response = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '1000000000000000', chainId: EVM_CHAIN });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const { signedTransaction, txHash, transactionId } = response.body;
    expect(response.headers.get('x-transaction-id')).toBe(transactionId);
    expect(await recoverTransactionAddress({ serializedTransaction: signedTransaction })).toBe(w.address);
    expect(parseTransaction(signedTransaction)).toMatchObject({ chainId: EVM_CHAIN, nonce: 0, to: RECIPIENT.toLowerCase(), value: 10n ** 15n, type: 'eip1559' });
    const mined = await receipt(txHash);
    expect(mined.status).toBe('success');
    expect(await evm.getBalance({ address: RECIPIENT })).toBeGreaterThanOrEqual(10n ** 15n);
    const detail = await record(w.id, transactionId);
    expect(detail).toMatchObject({
      transactionId,
      walletId: w.id,
      walletType: 'EVM',
      intentKind: 'transfer',
      status: 'submitted',
      chainId: String(EVM_CHAIN),
      network: null,
      to: RECIPIENT,
      value: '1000000000000000',
      hash: txHash,
      nonce: 0,
      failureStage: null,
    });
    expect(detail.tokenAddress).toBeUndefined();
  });

  it('sends an ERC-20 (test USDC) transfer', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await fund(w.id, '10', 'usdc');
    const recipient = '0x1111111111111111111111111111111111111111';
    const response = await post(`/v1/wallets/${w.id}/transfer`, { to: recipient, value: '2500000', chainId: String(EVM_CHAIN), tokenAddress: usdc });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect((await receipt(response.body.txHash)).status).toBe('success');
    expect(await evm.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [recipient] })).toBe(2_500_000n);
    expect(await evm.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [w.address] })).toBe(7_500_000n);
    expect(await record(w.id, response.body.transactionId)).toMatchObject({ to: recipient, value: '2500000', tokenAddress: usdc });
  });

  it('gives 20 concurrent transfers from one wallet 20 consecutive nonces, all mined', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: String(1000 + i), chainId: EVM_CHAIN })),
    );
    for (const r of responses) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const nonces = responses.map((r) => parseTransaction(r.body.signedTransaction).nonce!).sort((a, b) => a - b);
    expect(nonces).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const receipts = await Promise.all(responses.map((r) => receipt(r.body.txHash)));
    expect(receipts.every((x) => x.status === 'success')).toBe(true);
    expect(await evm.getTransactionCount({ address: w.address })).toBe(20);
  });

  it('records a refused broadcast as failed at stage broadcast, and hands its nonce out again', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '0.001');
    const tooMuch = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '5000000000000000000', chainId: EVM_CHAIN, gasLimit: '21000' });
    expect(tooMuch.status, JSON.stringify(tooMuch.body)).toBe(400);
    expect(tooMuch.body).toMatchObject({ code: 'BROADCAST_FAILED', failureStage: 'broadcast', failureCode: 'INSUFFICIENT_NATIVE_BALANCE' });
    expect(tooMuch.headers.get('x-transaction-id')).toBe(tooMuch.body.transactionId);
    expect(await record(w.id, tooMuch.body.transactionId)).toMatchObject({ status: 'failed', failureStage: 'broadcast', failureCode: 'INSUFFICIENT_NATIVE_BALANCE' });
    const next = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(parseTransaction(next.body.signedTransaction).nonce).toBe(0);
    expect((await receipt(next.body.txHash)).status).toBe('success');
  });

  it('replays a transfer with the same Idempotency-Key without sending again; another body is 409', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    const body = { to: RECIPIENT, value: '7', chainId: EVM_CHAIN };
    const headers = { 'idempotency-key': `transfer-${Math.random()}` };
    const [first, ...rest] = await Promise.all(Array.from({ length: 5 }, () => post(`/v1/wallets/${w.id}/transfer`, body, headers)));
    expect(first!.status).toBe(200);
    for (const r of rest) {
      expect(r.status).toBe(200);
      expect(r.body).toEqual(first!.body);
      expect(r.headers.get('x-transaction-id')).toBe(first!.body.transactionId);
    }
    const conflict = await post(`/v1/wallets/${w.id}/transfer`, { ...body, value: '8' }, headers);
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('CONFLICT');
    const list = (await app.request('GET', `/v1/wallets/${w.id}/transactions`, { key })).body;
    expect(list.data).toHaveLength(1);
    await receipt(first!.body.txHash);
    expect(await evm.getTransactionCount({ address: w.address })).toBe(1);
  });

  it('broadcasts from sign-transaction; value is recorded only when the request had it', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    const fees = { maxFeePerGas: '20000000000', maxPriorityFeePerGas: '1000000000', gasLimit: '21000' };
    const signOnly = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: { to: RECIPIENT, value: '5', chainId: EVM_CHAIN, nonce: 0, ...fees } });
    expect(signOnly.status).toBe(200);
    expect(signOnly.body.transactionId).toBeUndefined();
    expect(signOnly.headers.get('x-transaction-id')).toBeNull();
    const withValue = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: { to: RECIPIENT, value: '5', chainId: EVM_CHAIN, nonce: 0, ...fees }, broadcast: true });
    expect(withValue.status, JSON.stringify(withValue.body)).toBe(200);
    expect(withValue.headers.get('x-transaction-id')).toBe(withValue.body.transactionId);
    expect(withValue.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const noValue = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: { to: RECIPIENT, chainId: EVM_CHAIN, nonce: 1, ...fees }, broadcast: true });
    expect(noValue.status, JSON.stringify(noValue.body)).toBe(200);
    await receipt(noValue.body.txHash);
    expect(await record(w.id, withValue.body.transactionId)).toMatchObject({ intentKind: 'sign_transaction', chainId: String(EVM_CHAIN), to: RECIPIENT, value: '5', nonce: 0 });
    const bare = await record(w.id, noValue.body.transactionId);
    expect(bare).toMatchObject({ intentKind: 'sign_transaction', nonce: 1 });
    expect(bare.to).toBeUndefined();
    expect(bare.value).toBeUndefined();
    const list = (await app.request('GET', `/v1/wallets/${w.id}/transactions?intentKind=sign_transaction`, { key })).body;
    expect(list.data.map((r: { transactionId: string }) => r.transactionId)).toEqual([noValue.body.transactionId, withValue.body.transactionId]);
    // An unconfigured chain is refused before anything is signed or recorded.
    const unknownChain = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: { to: RECIPIENT, chainId: 1, nonce: 2, ...fees }, broadcast: true });
    expect(unknownChain.status).toBe(400);
    expect((await app.request('GET', `/v1/wallets/${w.id}/transactions`, { key })).body.data).toHaveLength(2);
  });

  it('sends SOL and an SPL token, creating the recipient token account', async () => {
    const w = await wallet('SOLANA');
    await fund(w.id, '2');
    await fund(w.id, '10', 'usdc');
    const rpc = createSolanaRpc(devnets.solanaRpcUrl);
    const recipient = (await wallet('SOLANA')).address;
    const sol = await post(`/v1/wallets/${w.id}/transfer`, { to: recipient, value: '250000000', network: 'SOLANA_DEVNET' });
    expect(sol.status, JSON.stringify(sol.body)).toBe(200);
    expect(sol.headers.get('x-transaction-id')).toBe(sol.body.transactionId);
    const spl = await post(`/v1/wallets/${w.id}/transfer`, { to: recipient, value: '1500000', network: 'SOLANA_DEVNET', tokenAddress: usdcMint });
    expect(spl.status, JSON.stringify(spl.body)).toBe(200);
    await expect.poll(async () => (await rpc.getBalance(address(recipient)).send()).value, { timeout: 10_000 }).toBe(250_000_000n);
    const [ata] = await findAssociatedTokenPda({ owner: address(recipient), mint: address(usdcMint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
    await expect.poll(async () => (await rpc.getTokenAccountBalance(ata).send()).value.amount, { timeout: 10_000 }).toBe('1500000');
    expect(await record(w.id, spl.body.transactionId)).toMatchObject({
      walletType: 'SOLANA',
      network: 'SOLANA_DEVNET',
      chainId: null,
      to: recipient,
      value: '1500000',
      tokenAddress: usdcMint,
      hash: spl.body.txHash,
      nonce: null,
    });
  });

  it('checks a Solana transaction before signing: unknown blockhash is 400 BLOCKHASH_NOT_FOUND with no record', async () => {
    const w = await wallet('SOLANA');
    await fund(w.id, '1');
    const built = await devnets.gateways.solana('SOLANA_DEVNET')!.buildTransfer({
      from: w.address,
      to: (await wallet('SOLANA')).address,
      amount: 10_000_000n,
      recentBlockhash: '4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM', // a valid base58 hash this chain never produced
    });
    const response = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: built.transaction, network: 'SOLANA_DEVNET', broadcast: true });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    expect(response.body.code).toBe('BLOCKHASH_NOT_FOUND');
    expect(response.body.transactionId).toBeUndefined();
    expect(response.headers.get('x-transaction-id')).toBeNull();
    expect((await app.request('GET', `/v1/wallets/${w.id}/transactions`, { key })).body.data).toHaveLength(0);
    // The same transaction over a fresh blockhash broadcasts and is recorded as sign_transaction.
    const { blockhash } = await devnets.gateways.solana('SOLANA_DEVNET')!.getLatestBlockhash();
    const fresh = await devnets.gateways.solana('SOLANA_DEVNET')!.buildTransfer({ from: w.address, to: (await wallet('SOLANA')).address, amount: 10_000_000n, recentBlockhash: blockhash });
    const ok = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: fresh.transaction, network: 'SOLANA_DEVNET', broadcast: true });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const detail = await record(w.id, ok.body.transactionId);
    expect(detail).toMatchObject({ intentKind: 'sign_transaction', network: 'SOLANA_DEVNET', hash: ok.body.txHash });
    expect(detail.to).toBeUndefined();
    expect(detail.value).toBeUndefined();
    expect(detail.tokenAddress).toBeUndefined();
  });

  it('validates durable-nonce transactions before signing: a changed or missing nonce is 400 INVALID_NONCE', async () => {
    const w = await wallet('SOLANA');
    await fund(w.id, '1');
    const rpc = createSolanaRpc(devnets.solanaRpcUrl);
    const gateway = devnets.gateways.solana('SOLANA_DEVNET')!;
    const payer = createNoopSigner(address(w.address));
    const nonceAccount = await generateKeyPairSigner();
    const rent = await rpc.getMinimumBalanceForRentExemption(BigInt(getNonceSize())).send();
    // The wallet pays and is the nonce authority; the new account signs here, the wallet through the API.
    const { blockhash: recent, lastValidBlockHeight } = await gateway.getLatestBlockhash();
    const create = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: recent as Blockhash, lastValidBlockHeight }, m),
      (m) =>
        appendTransactionMessageInstructions(
          [
            getCreateAccountInstruction({ payer, newAccount: nonceAccount, lamports: rent, space: getNonceSize(), programAddress: SYSTEM_PROGRAM_ADDRESS }),
            getInitializeNonceAccountInstruction({ nonceAccount: nonceAccount.address, nonceAuthority: payer.address }),
          ],
          m,
        ),
      (m) => partiallySignTransactionMessageWithSigners(m),
    );
    const created = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: getBase64EncodedWireTransaction(create), network: 'SOLANA_DEVNET', broadcast: true });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await expect.poll(async () => gateway.getNonceAccount(nonceAccount.address), { timeout: 10_000 }).not.toBeNull();
    const { nonce } = (await gateway.getNonceAccount(nonceAccount.address))!;
    const durable = async (nonceValue: string, nonceAddress: SolanaAddress) =>
      getBase64EncodedWireTransaction(
        await pipe(
          createTransactionMessage({ version: 0 }),
          (m) => setTransactionMessageFeePayerSigner(payer, m),
          (m) => setTransactionMessageLifetimeUsingDurableNonce({ nonce: nonceValue as Nonce, nonceAccountAddress: nonceAddress, nonceAuthorityAddress: payer.address }, m),
          (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source: payer, destination: nonceAccount.address, amount: lamports(1_000n) }), m),
          (m) => partiallySignTransactionMessageWithSigners(m),
        ),
      );
    const first = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: await durable(nonce, nonceAccount.address), network: 'SOLANA_DEVNET', broadcast: true });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(await record(w.id, first.body.transactionId)).toMatchObject({ intentKind: 'sign_transaction', hash: first.body.txHash });
    await expect.poll(async () => (await gateway.getNonceAccount(nonceAccount.address))?.nonce, { timeout: 10_000 }).not.toBe(nonce);
    const before = (await app.request('GET', `/v1/wallets/${w.id}/transactions`, { key })).body.data.length;
    const reused = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: await durable(nonce, nonceAccount.address), network: 'SOLANA_DEVNET', broadcast: true });
    expect(reused.status).toBe(400);
    expect(reused.body.code).toBe('INVALID_NONCE');
    const notNonce = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: await durable(nonce, address(w.address)), network: 'SOLANA_DEVNET', broadcast: true });
    expect(notNonce.status).toBe(400);
    expect(notNonce.body.code).toBe('INVALID_NONCE');
    expect(reused.body.transactionId).toBeUndefined();
    expect((await app.request('GET', `/v1/wallets/${w.id}/transactions`, { key })).body.data).toHaveLength(before);
  });

  it('estimates fees without signing or recording anything', async () => {
    const e = await wallet('EVM');
    await fund(e.id, '1');
    const native = await post(`/v1/wallets/${e.id}/estimate-fee`, { to: RECIPIENT, value: '1000000000000000000', chainId: EVM_CHAIN });
    expect(native.status, JSON.stringify(native.body)).toBe(200);
    expect(native.body).toMatchObject({ transferAmount: '1', currency: 'ETH', transactionType: 2 });
    expect(BigInt(native.body.gasLimit)).toBe(25200n); // 21000 estimated, plus 20 %
    expect(Number(native.body.estimatedFee)).toBeGreaterThan(0);
    const token = await post(`/v1/wallets/${e.id}/estimate-fee`, { to: RECIPIENT, value: '1500000', chainId: EVM_CHAIN, tokenAddress: usdc });
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ transferAmount: '1.5', currency: 'ETH' });
    const s = await wallet('SOLANA');
    await fund(s.id, '1');
    const sol = await post(`/v1/wallets/${s.id}/estimate-fee`, { to: (await wallet('SOLANA')).address, value: '1000000000', network: 'SOLANA_DEVNET' });
    expect(sol.status, JSON.stringify(sol.body)).toBe(200);
    expect(sol.body).toMatchObject({ estimatedFee: '0.000005', transferAmount: '1', currency: 'SOL' });
    const spl = await post(`/v1/wallets/${s.id}/estimate-fee`, { to: (await wallet('SOLANA')).address, value: '1000000', network: 'SOLANA_DEVNET', tokenAddress: usdcMint });
    expect(spl.status, JSON.stringify(spl.body)).toBe(200);
    expect(spl.body).toMatchObject({ estimatedFee: '0.00204428', transferAmount: '1', currency: 'SOL' });
    expect(spl.body.warning).toMatch(/token account/);
    for (const w of [e, s]) expect((await app.request('GET', `/v1/wallets/${w.id}/transactions`, { key })).body.data).toHaveLength(0);
  });

  it('refuses bad transfer input with a 400 and writes nothing', async () => {
    const e = await wallet('EVM');
    const s = await wallet('SOLANA');
    const cosmos = await wallet('COSMOS');
    const cases: [string, unknown][] = [
      [e.id, {}],
      [e.id, { to: RECIPIENT, value: '1' }],
      [e.id, { to: RECIPIENT, value: '1', chainId: 999999 }],
      [e.id, { to: 'not-an-address', value: '1', chainId: EVM_CHAIN }],
      [e.id, { to: RECIPIENT, value: '-1', chainId: EVM_CHAIN }],
      [e.id, { to: RECIPIENT, value: '1.5', chainId: EVM_CHAIN }],
      [e.id, { to: RECIPIENT, value: 1, chainId: EVM_CHAIN }],
      [e.id, { to: RECIPIENT, value: '0', chainId: EVM_CHAIN }],
      [e.id, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN, kind: 'ERC20' }],
      [e.id, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN, kind: 'SPL', tokenAddress: usdc }],
      [e.id, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN, gasPrice: '1' }],
      [e.id, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN, network: 'SOLANA_DEVNET' }],
      [e.id, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN, extra: true }],
      [e.id, { to: 'x'.repeat(10_000), value: '1', chainId: EVM_CHAIN }],
      [s.id, { to: RECIPIENT, value: '1', network: 'SOLANA_DEVNET' }],
      [s.id, { to: s.address, value: '1', network: 'SOLANA_DEVNET', gasLimit: '21000' }],
      [s.id, { to: s.address, value: '1', network: 'SOLANA_DEVNET', tokenAddress: RECIPIENT }],
      [s.id, { to: s.address, value: '1' }], // mainnet is not configured here
      [cosmos.id, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN }],
    ];
    for (const [walletId, body] of cases) {
      const response = await post(`/v1/wallets/${walletId}/transfer`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code, JSON.stringify(response.body)).toBe('INVALID_REQUEST');
      expect(response.body.transactionId).toBeUndefined();
    }
    for (const w of [e, s]) expect((await app.request('GET', `/v1/wallets/${w.id}/transactions`, { key })).body.data).toHaveLength(0);
  });

  it("keeps records private to the project: another key's lookup is the same 404 as a missing record", async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    const sent = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN });
    expect(sent.status).toBe(200);
    const stranger = (await app.createKey()).apiKey;
    const foreign = await app.request('GET', `/v1/wallets/${w.id}/transactions/${sent.body.transactionId}`, { key: stranger });
    const missing = await app.request('GET', `/v1/wallets/${w.id}/transactions/00000000-0000-4000-8000-000000000000`, { key });
    const malformed = await app.request('GET', `/v1/wallets/${w.id}/transactions/nope`, { key });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(malformed.body).toEqual(missing.body);
    // The stranger's own wallet cannot reach the record either.
    const theirs = await wallet('EVM', stranger);
    const crossed = await app.request('GET', `/v1/wallets/${theirs.id}/transactions/${sent.body.transactionId}`, { key: stranger });
    expect(crossed.status).toBe(404);
    expect(crossed.body).toEqual(missing.body);
    expect((await app.request('GET', `/v1/wallets/${w.id}/transactions`, { key: stranger })).status).toBe(404);
  });

  it('pages the history newest first with no record lost or repeated while transfers are added', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    for (let i = 0; i < 5; i++) expect((await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: String(i + 1), chainId: EVM_CHAIN })).status).toBe(200);
    const seen: string[] = [];
    let cursor: string | null = null;
    let page = 0;
    do {
      const query: string = `?limit=2${cursor ? `&cursor=${cursor}` : ''}`;
      const response = await app.request('GET', `/v1/wallets/${w.id}/transactions${query}`, { key });
      expect(response.status).toBe(200);
      expect(response.body.pagination.limit).toBe(2);
      seen.push(...response.body.data.map((r: { transactionId: string }) => r.transactionId));
      cursor = response.body.pagination.cursor;
      // Newer records arriving mid-walk land before the cursor and never shift later pages.
      if (page++ === 0) expect((await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '99', chainId: EVM_CHAIN })).status).toBe(200);
    } while (cursor);
    expect(seen).toHaveLength(5);
    expect(new Set(seen).size).toBe(5);
    const all = (await app.request('GET', `/v1/wallets/${w.id}/transactions?limit=100`, { key })).body.data;
    expect(all).toHaveLength(6);
    expect(all.map((r: { createdAt: string }) => r.createdAt)).toEqual([...all.map((r: { createdAt: string }) => r.createdAt)].sort().reverse());
    for (const bad of ['?status=done', '?intentKind=swap', '?limit=0', '?limit=101', '?cursor=zzz', '?other=1']) {
      const response = await app.request('GET', `/v1/wallets/${w.id}/transactions${bad}`, { key });
      expect(response.status, bad).toBe(400);
    }
  });
});

describe('broadcasts when the RPC fails', () => {
  let devnets: LocalDevnets;
  let evmProxy: RpcFaultProxy;
  let solanaProxy: RpcFaultProxy;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    evmProxy = await startRpcFaultProxy(devnets.evmRpcUrl);
    solanaProxy = await startRpcFaultProxy(devnets.solanaRpcUrl);
    const registry = createChainRegistry(
      [
        { type: 'EVM', chainId: EVM_CHAIN, rpcUrl: evmProxy.url, isDevnet: true },
        { type: 'SOLANA', network: 'SOLANA_DEVNET', rpcUrl: solanaProxy.url, isDevnet: true },
      ],
      { timeoutMs: 1_000 },
    );
    app = await startTestApp(testDatabaseKinds[0]!, { chains: { ...registry, faucet: devnets.faucet } });
    key = (await app.createKey()).apiKey;
  });
  afterAll(async () => {
    await app?.close();
    await evmProxy?.stop();
    await solanaProxy?.stop();
    await devnets?.stop();
  });

  const wallet = async (type: string) =>
    (await app.request('POST', '/v1/wallets', { key, body: { type, userIdentifier: `fault-${type}-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body;
  const history = async (walletId: string) => (await app.request('GET', `/v1/wallets/${walletId}/transactions`, { key })).body.data;

  it('answers 503 RPC_UNAVAILABLE with no record when the RPC fails before anything was sent', async () => {
    const e = await wallet('EVM');
    const s = await wallet('SOLANA');
    expect((await app.request('POST', '/v1/local/faucet', { key, body: { walletId: e.id, amount: '1' } })).status).toBe(200);
    expect((await app.request('POST', '/v1/local/faucet', { key, body: { walletId: s.id, amount: '1' } })).status).toBe(200);
    const { blockhash } = await devnets.gateways.solana('SOLANA_DEVNET')!.getLatestBlockhash();
    const built = await devnets.gateways.solana('SOLANA_DEVNET')!.buildTransfer({ from: s.address, to: (await wallet('SOLANA')).address, amount: 10_000_000n, recentBlockhash: blockhash });
    for (const mode of ['http500', 'drop', { delayMs: 1_500 }] as const) {
      evmProxy.setMode(mode);
      solanaProxy.setMode(mode);
      const evm = await app.request('POST', `/v1/wallets/${e.id}/transfer`, { key, body: { to: RECIPIENT, value: '1', chainId: EVM_CHAIN } });
      expect(evm.status, JSON.stringify(mode)).toBe(503);
      expect(evm.body.code).toBe('RPC_UNAVAILABLE');
      const sol = await app.request('POST', `/v1/wallets/${s.id}/sign-transaction`, { key, body: { transaction: built.transaction, network: 'SOLANA_DEVNET', broadcast: true } });
      expect(sol.status, JSON.stringify(mode)).toBe(503);
      expect(sol.body.code).toBe('RPC_UNAVAILABLE');
      expect(sol.body.transactionId).toBeUndefined();
      expect(sol.headers.get('x-transaction-id')).toBeNull();
    }
    evmProxy.setMode('pass');
    solanaProxy.setMode('pass');
    expect(await history(e.id)).toHaveLength(0);
    expect(await history(s.id)).toHaveLength(0);
  });

  it('records a lost broadcast answer as failed at stage broadcast with RPC_UNAVAILABLE (502)', async () => {
    const e = await wallet('EVM');
    expect((await app.request('POST', '/v1/local/faucet', { key, body: { walletId: e.id, amount: '1' } })).status).toBe(200);
    evmProxy.setMode({ failMethods: ['eth_sendRawTransaction'] });
    const response = await app.request('POST', `/v1/wallets/${e.id}/transfer`, { key, body: { to: RECIPIENT, value: '1', chainId: EVM_CHAIN } });
    evmProxy.setMode('pass');
    expect(response.status, JSON.stringify(response.body)).toBe(502);
    expect(response.body).toMatchObject({ code: 'BROADCAST_FAILED', failureStage: 'broadcast', failureCode: 'RPC_UNAVAILABLE' });
    expect(response.headers.get('x-transaction-id')).toBe(response.body.transactionId);
    const [row] = await history(e.id);
    expect(row).toMatchObject({ transactionId: response.body.transactionId, status: 'failed', failureStage: 'broadcast', failureCode: 'RPC_UNAVAILABLE' });
    expect(row.hash).toMatch(/^0x[0-9a-f]{64}$/);
  });
});
