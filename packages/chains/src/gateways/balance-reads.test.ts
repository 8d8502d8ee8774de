import { address, blockhash, createSolanaRpc, generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { findAssociatedTokenPda, getMintSize } from '@solana-program/token';
import { createPublicClient, encodeFunctionData, http, parseEther, type Address as EvmAddress } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '@wallet/domain/balances/ports.ts';
import { ChainUnavailableError } from '@wallet/domain/transactions/gateways.ts';
import { startAnvil, type AnvilInstance } from '../evm/anvil.ts';
import { fundEvmWallet } from '../evm/faucet.ts';
import { TEST_USDC_ABI, deployTestUsdc } from '../evm/test-usdc.ts';
import { startSolanaDevnet, type SolanaDevnet } from '../solana/devnet.ts';
import { buildSignedTransaction, getCreateMintInstructions, getMintToOwnerInstructions } from '../solana/spl.ts';
import { startRpcFaultProxy, type RpcFaultProxy } from '../testing/index.ts';
import { createEvmBalanceReads, createSolanaBalanceReads } from './balance-reads.ts';

const DEAD_RPC = 'http://127.0.0.1:9';

describe('EVM balance reads', () => {
  let anvil: AnvilInstance;
  let proxy: RpcFaultProxy;
  let usdc: EvmAddress;
  const owner = privateKeyToAccount(generatePrivateKey()).address;

  beforeAll(async () => {
    anvil = await startAnvil({ blockTimeSeconds: 0.25 });
    usdc = await deployTestUsdc(anvil.rpcUrl, anvil.chainId);
    proxy = await startRpcFaultProxy(anvil.rpcUrl);
    await fundEvmWallet({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, usdcAddress: usdc, to: owner, nativeWei: parseEther('1.25'), usdcBaseUnits: 4_500_000n });
  });
  afterAll(async () => {
    await proxy?.stop();
    await anvil?.stop();
  });

  it('reads the native balance and every call at one block, in two HTTP requests whatever the number of calls', async () => {
    const reads = createEvmBalanceReads({ chainId: anvil.chainId, rpcUrl: proxy.url });
    const balanceOf = { to: usdc, data: encodeFunctionData({ abi: TEST_USDC_ABI, functionName: 'balanceOf', args: [owner] }) };
    const before = proxy.requests;
    const snapshot = await reads.read(owner, Array.from({ length: 12 }, () => balanceOf));
    expect(proxy.requests - before).toBe(2);
    const viem = createPublicClient({ transport: http(anvil.rpcUrl) });
    expect(snapshot.native).toBe(await viem.getBalance({ address: owner, blockNumber: snapshot.blockNumber }));
    expect(snapshot.native).toBe(parseEther('1.25'));
    const usdcAtBlock = await viem.readContract({ address: usdc, abi: TEST_USDC_ABI, functionName: 'balanceOf', args: [owner], blockNumber: snapshot.blockNumber });
    expect(snapshot.results).toHaveLength(12);
    for (const result of snapshot.results) expect(result.ok && BigInt(result.data)).toBe(usdcAtBlock);
    expect(usdcAtBlock).toBe(4_500_000n);
  });

  it('a reverting call is a result, an unreachable RPC is ChainUnavailableError', async () => {
    const reads = createEvmBalanceReads({ chainId: anvil.chainId, rpcUrl: anvil.rpcUrl });
    const snapshot = await reads.read(owner, [{ to: usdc, data: '0xdeadbeef' }]);
    expect(snapshot.results[0]).toMatchObject({ ok: false });
    await expect(createEvmBalanceReads({ chainId: 1, rpcUrl: DEAD_RPC, timeoutMs: 1_000 }).read(owner, [])).rejects.toBeInstanceOf(ChainUnavailableError);
  });
});

describe('Solana balance reads', () => {
  let devnet: SolanaDevnet;
  let proxy: RpcFaultProxy;
  let rpc: ReturnType<typeof createSolanaRpc>;
  let payer: KeyPairSigner;
  let owner: Address;

  /** A new mint of `program` (spl.ts helpers: classic or Token-2022), `amount` of it minted to `owner`'s associated account. */
  async function mintOf(program: Address, decimals: number, amount: bigint): Promise<Address> {
    const mint = await generateKeyPairSigner();
    const rent = await rpc.getMinimumBalanceForRentExemption(BigInt(getMintSize())).send();
    const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'processed' }).send();
    const { wire } = await buildSignedTransaction({
      feePayer: payer,
      blockhash: blockhash(latest.blockhash),
      lastValidBlockHeight: latest.lastValidBlockHeight,
      instructions: [
        ...getCreateMintInstructions({ payer, mint, mintAuthority: payer.address, decimals, rentLamports: rent, tokenProgram: program }),
        ...(await getMintToOwnerInstructions({ payer, mint: mint.address, mintAuthority: payer, owner, amount, tokenProgram: program })),
      ],
    });
    await rpc.sendTransaction(wire, { encoding: 'base64' }).send();
    await devnet.waitForSlot(devnet.getSlot() + 2);
    return mint.address;
  }

  beforeAll(async () => {
    devnet = await startSolanaDevnet({ slotMs: 100 });
    proxy = await startRpcFaultProxy(devnet.rpcUrl);
    rpc = createSolanaRpc(devnet.rpcUrl);
    payer = await generateKeyPairSigner();
    owner = (await generateKeyPairSigner()).address;
    await devnet.fundWallet({ to: payer.address, lamports: 10_000_000_000n });
    await devnet.fundWallet({ to: owner, lamports: 2_500_000_000n, usdcBaseUnits: 7_250_000n });
  });
  afterAll(async () => {
    await proxy?.stop();
    await devnet?.stop();
  });

  it('reads SOL and the accounts of both token programs with their decimals, as @solana/kit reads them', async () => {
    const classic = await mintOf(address(TOKEN_PROGRAM), 9, 3_000_000_000n);
    const token2022 = await mintOf(address(TOKEN_2022_PROGRAM), 2, 12_345n);
    const reads = createSolanaBalanceReads({ network: 'SOLANA_DEVNET', rpcUrl: proxy.url });
    const before = proxy.requests;
    const snapshot = await reads.read(owner);
    expect(proxy.requests - before).toBe(2);

    expect(snapshot.lamports).toBe((await rpc.getBalance(owner, { commitment: 'confirmed' }).send()).value);
    expect(snapshot.lamports).toBe(2_500_000_000n);
    const byMint = Object.fromEntries(snapshot.tokenAccounts.map((a) => [a.mint, a]));
    expect(Object.keys(byMint).sort()).toEqual([devnet.usdcMint, classic, token2022].sort());
    for (const [mint, program] of [[devnet.usdcMint, TOKEN_PROGRAM], [classic, TOKEN_PROGRAM], [token2022, TOKEN_2022_PROGRAM]] as const) {
      const [ata] = await findAssociatedTokenPda({ owner, mint: address(mint), tokenProgram: address(program) });
      const kit = (await rpc.getTokenAccountBalance(ata, { commitment: 'confirmed' }).send()).value;
      expect({ amount: byMint[mint]!.amount.toString(), decimals: byMint[mint]!.decimals, program: byMint[mint]!.program }).toEqual({ amount: kit.amount, decimals: kit.decimals, program });
    }
    expect(byMint[token2022]).toMatchObject({ amount: 12_345n, decimals: 2 });
    expect(snapshot.programSlots[TOKEN_2022_PROGRAM]).toBeGreaterThan(0n);
  });

  it('the devnet answers getTokenAccountsByOwner by program and by mint, like a node', async () => {
    const byProgram = await rpc.getTokenAccountsByOwner(owner, { programId: address(TOKEN_PROGRAM) }, { encoding: 'base64', commitment: 'confirmed' }).send();
    const [usdcAta] = await findAssociatedTokenPda({ owner, mint: devnet.usdcMint, tokenProgram: address(TOKEN_PROGRAM) });
    expect(byProgram.value.map((a) => a.pubkey)).toContain(usdcAta);
    const byMint = await rpc.getTokenAccountsByOwner(owner, { mint: devnet.usdcMint }, { encoding: 'base64', commitment: 'confirmed' }).send();
    expect(byMint.value.map((a) => a.pubkey)).toEqual([usdcAta]);
    const stranger = (await generateKeyPairSigner()).address;
    expect((await rpc.getTokenAccountsByOwner(stranger, { programId: address(TOKEN_PROGRAM) }, { encoding: 'base64' }).send()).value).toEqual([]);
  });

  it('an owner without token accounts reads no accounts; an unreachable RPC is ChainUnavailableError', async () => {
    const empty = await createSolanaBalanceReads({ network: 'SOLANA_DEVNET', rpcUrl: devnet.rpcUrl }).read((await generateKeyPairSigner()).address);
    expect(empty).toMatchObject({ lamports: 0n, tokenAccounts: [] });
    await expect(createSolanaBalanceReads({ network: 'SOLANA', rpcUrl: DEAD_RPC, timeoutMs: 1_000 }).read(owner)).rejects.toBeInstanceOf(ChainUnavailableError);
  });
});

