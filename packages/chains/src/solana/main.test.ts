import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { createSolanaRpc, generateKeyPairSigner } from '@solana/kit';
import { fundSolanaWalletViaRpc } from './devnet.ts';
import { getAssociatedTokenAddress } from './spl.ts';

it('main.ts runs the devnet as a process: prints one JSON line, serves RPC, stops on SIGTERM', async () => {
  const main = fileURLToPath(new URL('./main.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', 'tsx', main, '--slot-ms', '50'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const lines = createInterface({ input: child.stdout! });
    const [line] = (await once(lines, 'line')) as [string];
    const ready = JSON.parse(line) as { rpcUrl: string; usdcMint: string };
    expect(ready.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);

    const rpc = createSolanaRpc(ready.rpcUrl);
    expect(await rpc.getHealth().send()).toBe('ok');
    const w = await generateKeyPairSigner();
    const { signatures } = await fundSolanaWalletViaRpc(ready.rpcUrl, { to: w.address, lamports: 1_230_000n, usdcBaseUnits: 7_000_000n });
    expect(signatures).toHaveLength(2);
    expect((await rpc.getBalance(w.address).send()).value).toBe(1_230_000n); // resolved at finalized
    const ata = await getAssociatedTokenAddress(w.address, ready.usdcMint as never);
    expect((await rpc.getTokenAccountBalance(ata).send()).value.uiAmountString).toBe('7');
  } finally {
    child.kill('SIGTERM');
  }
  const [code] = await once(child, 'exit');
  expect(code).toBe(0);
});
