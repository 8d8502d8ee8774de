import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  appendTransactionMessageInstructions,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  lamports,
  type Signature,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, describe, expect, it } from 'vitest';
import { startSolanaDevnet, type SolanaDevnet } from './devnet.ts';
import { getAssociatedTokenAddress } from './spl.ts';
import { decodeSnapshot } from './state-file.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'solana-state-'));
const running: SolanaDevnet[] = [];
afterAll(async () => {
  await Promise.all(running.map((d) => d.stop()));
  rmSync(dir, { recursive: true, force: true });
});

async function start(statePath: string, stateIntervalMs?: number) {
  const devnet = await startSolanaDevnet({ slotMs: 50, statePath, ...(stateIntervalMs ? { stateIntervalMs } : {}) });
  running.push(devnet);
  return { devnet, rpc: createSolanaRpc(devnet.rpcUrl) };
}

describe('the LiteSVM devnet with a state file', () => {
  it('continues the same chain after a stop and start: genesis, mint, balances, landed transactions, faucet', async () => {
    const statePath = path.join(dir, 'solana.bin');
    const { devnet: first, rpc } = await start(statePath);
    const [alice, bob] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner()]);
    await first.fundWallet({ to: alice.address, lamports: 2_000_000_000n, usdcBaseUnits: 5_000_000n });
    const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
    const tx = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(alice, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: alice, destination: bob.address, amount: lamports(300_000_000n) })], m),
      (m) => signTransactionMessageWithSigners(m),
    );
    const sig = await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64' }).send();
    expect(sig).toBe(getSignatureFromTransaction(tx));
    const slotBefore = first.getSlot();
    await first.stop();
    const size = statSync(statePath).size;

    const t0 = performance.now();
    const { devnet: second, rpc: rpc2 } = await start(statePath);
    console.log(`LiteSVM devnet state ${size} bytes, reloaded in ${(performance.now() - t0).toFixed(0)} ms`);
    expect(second.genesisHash).toBe(first.genesisHash);
    expect(await rpc2.getGenesisHash().send()).toBe(first.genesisHash);
    expect(second.usdcMint).toBe(first.usdcMint);
    expect(second.getSlot()).toBeGreaterThan(slotBefore);
    // Everything landed before the stop is final now.
    const [status] = (await rpc2.getSignatureStatuses([sig as Signature]).send()).value;
    expect(status).toMatchObject({ confirmationStatus: 'finalized', err: null });
    expect((await rpc2.getTransaction(sig, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send())?.meta?.err).toBeNull();
    expect((await rpc2.getBalance(bob.address).send()).value).toBe(300_000_000n);
    const ata = await getAssociatedTokenAddress(alice.address, second.usdcMint);
    expect((await rpc2.getTokenAccountBalance(ata).send()).value.amount).toBe('5000000');
    // The restored faucet and mint authority still sign.
    await second.fundWallet({ to: bob.address, lamports: 1n, usdcBaseUnits: 7n });
    expect((await rpc2.getBalance(bob.address).send()).value).toBe(300_000_001n);
    // A blockhash of the new process is accepted.
    const { value: fresh } = await rpc2.getLatestBlockhash({ commitment: 'confirmed' }).send();
    expect((await rpc2.isBlockhashValid(fresh.blockhash, { commitment: 'confirmed' }).send()).value).toBe(true);
    await second.stop();
  });

  it('writes the state periodically while running, atomically (no temp file left), and readable', async () => {
    const statePath = path.join(dir, 'periodic.bin');
    const { devnet } = await start(statePath, 50);
    const owner = await generateKeyPairSigner();
    const { signatures } = await devnet.fundWallet({ to: owner.address, lamports: 1_000_000n });
    const deadline = Date.now() + 5_000;
    let saved: string[] = [];
    while (Date.now() < deadline) {
      saved = decodeSnapshot(readFileSync(statePath)).chain.txs.map((t) => t.signature);
      if (signatures.every((s) => saved.includes(s))) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(saved).toEqual(expect.arrayContaining(signatures));
    expect(readdirSync(dir).filter((f) => f.startsWith('periodic.bin.'))).toEqual([]);
    await devnet.stop();
  });

  it('starts a fresh chain, with a new genesis hash, without a state file or from an unreadable one', async () => {
    const statePath = path.join(dir, 'broken.bin');
    const { devnet: a } = await start(path.join(dir, 'a.bin'));
    writeFileSync(statePath, 'WLTSVM1\n\x10\x00\x00\x00{"chain":');
    const { devnet: b } = await start(statePath);
    expect(b.discardedState).toMatch(/broken\.bin\.corrupt-\d+$/);
    expect(existsSync(b.discardedState!)).toBe(true);
    expect(b.genesisHash).not.toBe(a.genesisHash);
    expect(b.usdcMint).not.toBe(a.usdcMint);
    await Promise.all([a.stop(), b.stop()]);
    expect(decodeSnapshot(readFileSync(statePath)).chain.genesisHash).toBe(b.genesisHash);
  });
});
