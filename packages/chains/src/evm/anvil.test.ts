import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { createPublicClient, http } from 'viem';
import { describe, expect, it } from 'vitest';
import { startAnvil } from './anvil.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startAnvil', () => {
  it('starts on a free port, moves the finalized head, and stop() ends the process', async () => {
    const t0 = performance.now();
    const anvil = await startAnvil({ blockTimeSeconds: 0.25 });
    const startMs = performance.now() - t0;
    console.log(`anvil ready in ${startMs.toFixed(0)} ms at ${anvil.rpcUrl} (pid ${anvil.pid})`);
    try {
      expect(anvil.chainId).toBe(84532);
      expect(anvil.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(alive(anvil.pid)).toBe(true);
      const client = createPublicClient({ transport: http(anvil.rpcUrl) });
      expect(await client.getChainId()).toBe(84532);

      const first = (await client.getBlock({ blockTag: 'finalized' })).number;
      const deadline = Date.now() + 5_000;
      let later = first;
      while (later <= first && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        later = (await client.getBlock({ blockTag: 'finalized' })).number;
      }
      expect(later).toBeGreaterThan(first);
    } finally {
      await anvil.stop();
    }
    expect(alive(anvil.pid)).toBe(false);
    await anvil.stop(); // idempotent
  });

  it('honours an explicit port and chain id, with the default 1 s block time', async () => {
    const probe = await startAnvil({ chainId: 31337 });
    const port = Number(new URL(probe.rpcUrl).port);
    await probe.stop();
    const anvil = await startAnvil({ port, chainId: 1337 });
    try {
      expect(anvil.rpcUrl).toBe(`http://127.0.0.1:${port}`);
      const client = createPublicClient({ transport: http(anvil.rpcUrl) });
      expect(await client.getChainId()).toBe(1337);
    } finally {
      await anvil.stop();
    }
    expect(alive(anvil.pid)).toBe(false);
  });

  it('refuses a port where another anvil of the same chain id answers, and leaves that anvil serving', async () => {
    const a = await startAnvil({});
    try {
      const port = Number(new URL(a.rpcUrl).port);
      // The other node answers eth_chainId 84532 at once, as ours would: only the socket's owner tells them apart.
      await expect(startAnvil({ port })).rejects.toThrow(/port \d+ on 127\.0\.0\.1 is not available \(another process answers there\)/);
      expect(alive(a.pid)).toBe(true);
      expect(await createPublicClient({ transport: http(a.rpcUrl) }).getChainId()).toBe(84532);
    } finally {
      await a.stop();
    }
  });

  it('refuses a port held by a server that is no JSON-RPC node', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const port = (server.address() as AddressInfo).port;
      await expect(startAnvil({ port })).rejects.toThrow(/exited before becoming ready.*(Address already in use|os error 98)/is);
    } finally {
      server.close();
    }
  });

  it("reports anvil's stderr when it exits before becoming ready", async () => {
    const t0 = Date.now();
    const err = await startAnvil({ extraArgs: ['--no-such-flag'] }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toMatch(/exited before becoming ready \(code 2.*unexpected argument '--no-such-flag'/s);
    expect(Date.now() - t0).toBeLessThan(5_000);
    await expect(startAnvil({ chainId: -1 })).rejects.toThrow(/chainId must be a positive integer/);
  });
});
