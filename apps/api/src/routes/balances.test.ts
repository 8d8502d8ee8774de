import { address, blockhash, createSolanaRpc, generateKeyPairSigner } from '@solana/kit';
import { createChainRegistry } from '@wallet/chains';
import {
  buildSignedTransaction,
  deployTestUsdc,
  fundEvmWallet,
  getAssociatedTokenAddress,
  getCreateMintInstructions,
  getMintToOwnerInstructions,
  TEST_USDC_ABI,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
} from '@wallet/chains/devnets';
import { testDatabaseKinds } from '@wallet/db';
import { createPublicClient, encodeFunctionData, erc20Abi, http, parseEther, type Address, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_EVM_CHAIN_ID, startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { storedRecord } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

const DEAD_RPC = 'http://127.0.0.1:9';
const DEAD = '0x000000000000000000000000000000000000dEaD';
/** Chains of the test's registry beside the devnets: one whose RPC is down, one whose USDC is no contract. */
const DOWN_CHAIN = 31337;
const WRONG_USDC_CHAIN = 31338;

let devnets: LocalDevnets;
let chains: NonNullable<Parameters<typeof startTestApp>[1]>['chains'];
let viem: PublicClient;
let usdc: Address;
let solanaRpc: ReturnType<typeof createSolanaRpc>;
let usdcMint: string;

beforeAll(async () => {
  devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100 });
  const evm = devnets.directory.list().find((c) => c.type === 'EVM')!;
  const sol = devnets.directory.list().find((c) => c.type === 'SOLANA')!;
  usdc = evm.usdc!.address as Address;
  usdcMint = sol.usdc!.address;
  const registry = createChainRegistry(
    [
      { type: 'EVM', chainId: LOCAL_EVM_CHAIN_ID, rpcUrl: devnets.evmRpcUrl, usdcAddress: usdc, isDevnet: true },
      { type: 'EVM', chainId: DOWN_CHAIN, rpcUrl: DEAD_RPC },
      { type: 'EVM', chainId: WRONG_USDC_CHAIN, rpcUrl: devnets.evmRpcUrl, usdcAddress: DEAD },
      { type: 'SOLANA', network: 'SOLANA_DEVNET', rpcUrl: devnets.solanaRpcUrl, usdcMint },
      { type: 'SOLANA', network: 'SOLANA', rpcUrl: DEAD_RPC },
    ],
    { timeoutMs: 2_000 },
  );
  chains = { ...registry, faucet: devnets.faucet };
  viem = createPublicClient({ transport: http(devnets.evmRpcUrl) });
  solanaRpc = createSolanaRpc(devnets.solanaRpcUrl);
});
afterAll(async () => {
  await devnets?.stop();
});

/** A new mint of `tokenProgram` (`decimals`) with `amount` minted to `owner`'s associated token account, finalized. */
async function splMint(owner: string, decimals: number, amount: bigint, tokenProgram: string = TOKEN_PROGRAM_ADDRESS): Promise<string> {
  const [payer, mint] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
  await devnets.faucet.fund({ type: 'SOLANA', address: payer.address }, 'native', 5_000_000_000n);
  const rent = await solanaRpc.getMinimumBalanceForRentExemption(82n).send();
  const { value: latest } = await solanaRpc.getLatestBlockhash({ commitment: 'processed' }).send();
  const program = address(tokenProgram);
  const { wire, signature } = await buildSignedTransaction({
    feePayer: payer,
    blockhash: blockhash(latest.blockhash),
    lastValidBlockHeight: latest.lastValidBlockHeight,
    instructions: [
      ...getCreateMintInstructions({ payer, mint, mintAuthority: payer.address, decimals, rentLamports: rent, tokenProgram: program }),
      ...(await getMintToOwnerInstructions({ payer, mint: mint.address, mintAuthority: payer, owner: address(owner), amount, tokenProgram: program })),
    ],
  });
  await solanaRpc.sendTransaction(wire, { encoding: 'base64' }).send();
  for (;;) {
    const { value } = await solanaRpc.getSignatureStatuses([signature as never]).send();
    if (value[0]?.confirmationStatus === 'finalized') return mint.address;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(testDatabaseKinds)('GET /v1/wallets/{walletId}/balances on %s', (kind) => {
  let app: TestApp;
  let key: string;
  let owner: { projectId: string; partnerId: string; apiKeyId: string };

  beforeAll(async () => {
    app = await startTestApp(kind, { chains });
    const issued = await app.createKey();
    key = issued.apiKey;
    owner = { projectId: issued.projectId, partnerId: issued.partnerId, apiKeyId: issued.apiKeyId };
  });
  afterAll(async () => {
    await app?.close();
  });

  const wallet = async (type = 'EVM', withKey = key) => {
    const created = await app.request('POST', '/v1/wallets', { key: withKey, body: { type, userIdentifier: `balances-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return created.body as { id: string; address: string };
  };
  const balances = (walletId: string, query = '', withKey = key) => app.request('GET', `/v1/wallets/${walletId}/balances${query}`, { key: withKey });

  it('EVM: the native balance and USDC at one block, as viem reads them there', async () => {
    const w = await wallet();
    await devnets.faucet.fund({ type: 'EVM', address: w.address }, 'native', parseEther('1.5'));
    await devnets.faucet.fund({ type: 'EVM', address: w.address }, 'usdc', 25_250_000n);
    const answer = await balances(w.id, `?chainId=${LOCAL_EVM_CHAIN_ID}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const blockNumber = BigInt(answer.body.balances[0].blockNumber);
    const native = await viem.getBalance({ address: w.address as Address, blockNumber });
    const usdcBalance = (await viem.readContract({ address: usdc, abi: TEST_USDC_ABI, functionName: 'balanceOf', args: [w.address], blockNumber })) as bigint;
    expect(answer.body).toStrictEqual({
      walletId: w.id,
      type: 'EVM',
      address: w.address,
      chainId: String(LOCAL_EVM_CHAIN_ID),
      balances: [
        { asset: 'native', tokenAddress: null, symbol: 'ETH', decimals: 18, rawBalance: native.toString(), balance: '1.5', blockNumber: Number(blockNumber) },
        { asset: 'erc20', tokenAddress: usdc, symbol: 'USDC', decimals: 6, rawBalance: usdcBalance.toString(), balance: '25.25', blockNumber: Number(blockNumber) },
      ],
    });
    expect(native).toBe(parseEther('1.5'));
  });

  it('EVM: an ERC-20 the wallet moved shows beside USDC; another wallet does not list it', async () => {
    const w = await wallet();
    const bystander = await wallet();
    const token = await deployTestUsdc(devnets.evmRpcUrl, LOCAL_EVM_CHAIN_ID);
    await fundEvmWallet({ rpcUrl: devnets.evmRpcUrl, chainId: LOCAL_EVM_CHAIN_ID, usdcAddress: token, to: w.address as Address, nativeWei: parseEther('1'), usdcBaseUnits: 9_000_000n });
    const sent = await app.request('POST', `/v1/wallets/${w.id}/transfer`, { key, body: { to: DEAD, value: '1500000', chainId: LOCAL_EVM_CHAIN_ID, tokenAddress: token } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    await viem.waitForTransactionReceipt({ hash: sent.body.txHash, pollingInterval: 100 });

    const answer = await balances(w.id, `?chainId=${LOCAL_EVM_CHAIN_ID}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const blockNumber = BigInt(answer.body.balances[0].blockNumber);
    const read = (functionName: string, args: unknown[] = []) => viem.readContract({ address: token, abi: TEST_USDC_ABI, functionName, args, blockNumber } as never);
    const moved = answer.body.balances.find((b: { tokenAddress: string | null }) => b.tokenAddress === token);
    expect(moved).toStrictEqual({
      asset: 'erc20',
      tokenAddress: token,
      symbol: await read('symbol'),
      decimals: Number(await read('decimals')),
      rawBalance: String(await read('balanceOf', [w.address])),
      balance: '7.5',
      blockNumber: Number(blockNumber),
    });
    expect(answer.body.balances.map((b: { asset: string; symbol: string }) => `${b.asset}:${b.symbol}`)).toEqual(['native:ETH', 'erc20:USDC', `erc20:${moved.symbol}`]);
    const other = await balances(bystander.id, `?chainId=${LOCAL_EVM_CHAIN_ID}`);
    expect(other.body.balances.map((b: { tokenAddress: string | null }) => b.tokenAddress)).toEqual([null, usdc]);
  }, 60_000);

  it('EVM: an ERC-20 a batch of calls transferred shows too; one the batch only approved does not', async () => {
    const w = await wallet();
    const [transferred, approved] = [await deployTestUsdc(devnets.evmRpcUrl, LOCAL_EVM_CHAIN_ID), await deployTestUsdc(devnets.evmRpcUrl, LOCAL_EVM_CHAIN_ID)];
    await fundEvmWallet({ rpcUrl: devnets.evmRpcUrl, chainId: LOCAL_EVM_CHAIN_ID, usdcAddress: transferred, to: w.address as Address, nativeWei: 0n, usdcBaseUnits: 2_000_000n });
    const data = (functionName: 'transfer' | 'approve') => encodeFunctionData({ abi: erc20Abi, functionName, args: [DEAD, 1n] });
    // The record as the calls route stores it: the batch's calls, no token of its own.
    await storedRecord(app, w, owner, {
      intentKind: 'calls',
      chainId: String(LOCAL_EVM_CHAIN_ID),
      to: w.address,
      value: '0',
      tokenAddress: null,
      calls: [
        { to: approved, value: '0', data: data('approve') },
        { to: transferred.toUpperCase().replace('0X', '0x'), value: '0', data: data('transfer') },
      ],
    });
    const answer = await balances(w.id, `?chainId=${LOCAL_EVM_CHAIN_ID}`);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.balances.map((b: { tokenAddress: string | null; rawBalance: string }) => [b.tokenAddress, b.rawBalance])).toEqual([
      [null, '0'],
      [usdc, '0'],
      [transferred, '2000000'],
    ]);
  }, 60_000);

  it('Solana: SOL, USDC and mints of both token programs, as @solana/kit reads them', async () => {
    const w = await wallet('SOLANA');
    await devnets.faucet.fund({ type: 'SOLANA', address: w.address }, 'native', 2_000_000_000n);
    await devnets.faucet.fund({ type: 'SOLANA', address: w.address }, 'usdc', 3_500_000n);
    const classic = await splMint(w.address, 9, 42_000_000_000n);
    const token2022 = await splMint(w.address, 2, 1_234n, TOKEN_2022_PROGRAM_ADDRESS);
    const answer = await balances(w.id, '?network=SOLANA_DEVNET');
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const owner = address(w.address);
    const lamports = (await solanaRpc.getBalance(owner, { commitment: 'confirmed' }).send()).value;
    const tokenAmount = async (mint: string, program: string = TOKEN_PROGRAM_ADDRESS) =>
      (await solanaRpc.getTokenAccountBalance(await getAssociatedTokenAddress(owner, address(mint), address(program)), { commitment: 'confirmed' }).send()).value;
    const [usdcKit, classicKit, token2022Kit] = await Promise.all([tokenAmount(usdcMint), tokenAmount(classic), tokenAmount(token2022, TOKEN_2022_PROGRAM_ADDRESS)]);
    const slot = expect.any(Number);
    const spl = (mint: string, program: string, kit: { amount: string; decimals: number }, balance: string, symbol = mint) => ({
      asset: 'spl', tokenAddress: mint, tokenProgram: program, symbol, decimals: kit.decimals, rawBalance: kit.amount, balance, slot,
    });
    // USDC first, then the other mints by address.
    const others = [spl(classic, TOKEN_PROGRAM_ADDRESS, classicKit, '42'), spl(token2022, TOKEN_2022_PROGRAM_ADDRESS, token2022Kit, '12.34')].sort((a, b) => (a.tokenAddress < b.tokenAddress ? -1 : 1));
    expect(answer.body).toStrictEqual({
      walletId: w.id,
      type: 'SOLANA',
      address: w.address,
      network: 'SOLANA_DEVNET',
      balances: [
        { asset: 'native', tokenAddress: null, tokenProgram: null, symbol: 'SOL', decimals: 9, rawBalance: lamports.toString(), balance: '2', slot },
        spl(usdcMint, TOKEN_PROGRAM_ADDRESS, usdcKit, '3.5', 'USDC'),
        ...others,
      ],
    });
    for (const entry of answer.body.balances) expect(entry.slot).toBeGreaterThan(0);
    // A wallet without token accounts still lists the network's USDC, at zero.
    const empty = await balances((await wallet('SOLANA')).id, '?network=SOLANA_DEVNET');
    expect(empty.body.balances.map((b: { symbol: string; rawBalance: string }) => `${b.symbol}:${b.rawBalance}`)).toEqual(['SOL:0', 'USDC:0']);
  }, 60_000);

  it('refuses a bad query with INVALID_REQUEST at the field, and an unknown chain with UNSUPPORTED_CHAIN', async () => {
    const evm = await wallet();
    const sol = await wallet('SOLANA');
    const invalid = async (walletId: string, query: string, path: string) => {
      const answer = await balances(walletId, query);
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toMatchObject({ code: 'INVALID_REQUEST', details: [expect.objectContaining({ path })] });
    };
    await invalid(evm.id, '', 'chainId');
    await invalid(evm.id, '?chainId=base', 'chainId');
    await invalid(evm.id, `?chainId=${LOCAL_EVM_CHAIN_ID}&network=SOLANA_DEVNET`, 'network');
    await invalid(sol.id, `?chainId=${LOCAL_EVM_CHAIN_ID}`, 'chainId');
    const unknownKey = await balances(evm.id, `?chainId=${LOCAL_EVM_CHAIN_ID}&rpcUrl=http://evil.example`);
    expect(unknownKey.status).toBe(400);
    expect(unknownKey.body.code).toBe('INVALID_REQUEST');

    for (const [walletId, query, named] of [
      [evm.id, '?chainId=1', 'chain 1'],
      [sol.id, '?network=SOLANA_TESTNET', 'network SOLANA_TESTNET'],
    ] as const) {
      const answer = await balances(walletId, query);
      expect(answer.status, query).toBe(400);
      expect(answer.body, query).toStrictEqual({ code: 'UNSUPPORTED_CHAIN', message: `${named} is not configured in this deployment (see GET /v1/chains)` });
    }
  });

  it('COSMOS, STELLAR and SUI wallets answer UNSUPPORTED_WALLET_TYPE', async () => {
    for (const type of ['COSMOS', 'STELLAR', 'SUI']) {
      const answer = await balances((await wallet(type)).id);
      expect(answer.status, type).toBe(400);
      expect(answer.body, type).toStrictEqual({ code: 'UNSUPPORTED_WALLET_TYPE', message: `Balances are read for EVM and SOLANA wallets; this wallet is ${type}` });
    }
  });

  it("another project's wallet is the 404 of a missing one", async () => {
    const other = (await app.createKey()).apiKey;
    const theirs = await wallet('EVM', other);
    const foreign = await balances(theirs.id, `?chainId=${LOCAL_EVM_CHAIN_ID}`);
    const missing = await balances(crypto.randomUUID(), `?chainId=${LOCAL_EVM_CHAIN_ID}`);
    const malformed = await balances('not-a-wallet', `?chainId=${LOCAL_EVM_CHAIN_ID}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toStrictEqual(missing.body);
    expect(malformed.body).toStrictEqual(missing.body);
    expect(missing.body).toStrictEqual({ code: 'NOT_FOUND', message: 'Wallet not found' });
    // Its owner reads it.
    expect((await balances(theirs.id, `?chainId=${LOCAL_EVM_CHAIN_ID}`, other)).status).toBe(200);
  });

  it('a chain whose RPC is down is 503 RPC_UNAVAILABLE; a configured USDC that is no contract is 502 BALANCE_READ_FAILED', async () => {
    const evm = await wallet();
    for (const [walletId, query] of [
      [evm.id, `?chainId=${DOWN_CHAIN}`],
      [(await wallet('SOLANA')).id, '?network=SOLANA'],
      [(await wallet('SOLANA')).id, ''],
    ] as const) {
      const answer = await balances(walletId, query);
      expect(answer.status, query).toBe(503);
      expect(answer.body.code, query).toBe('RPC_UNAVAILABLE');
    }
    const wrong = await balances(evm.id, `?chainId=${WRONG_USDC_CHAIN}`);
    expect(wrong.status).toBe(502);
    expect(wrong.body).toMatchObject({ code: 'BALANCE_READ_FAILED', message: expect.stringContaining(DEAD) });
  }, 30_000);
});
