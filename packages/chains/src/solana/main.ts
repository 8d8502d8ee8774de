/**
 * Run the local Solana devnet as its own process:
 *   node --import tsx packages/chains/src/solana/main.ts [--port 8899] [--slot-ms 400] [--state FILE]
 * (or SOLANA_DEVNET_PORT / SOLANA_DEVNET_SLOT_MS). Prints one JSON line {"rpcUrl","usdcMint","mintAuthority"} when
 * ready; stops on SIGTERM / SIGINT.
 */
import { parseArgs } from 'node:util';
import { startSolanaDevnet } from './devnet.ts';

const { values } = parseArgs({
  options: { port: { type: 'string' }, 'slot-ms': { type: 'string' }, state: { type: 'string' } },
  allowPositionals: false,
});
const port = Number(values.port ?? process.env.SOLANA_DEVNET_PORT ?? 0);
const slotMs = Number(values['slot-ms'] ?? process.env.SOLANA_DEVNET_SLOT_MS ?? 400);

const devnet = await startSolanaDevnet({ port, slotMs, ...(values.state ? { statePath: values.state } : {}) });
process.stdout.write(
  `${JSON.stringify({ rpcUrl: devnet.rpcUrl, usdcMint: devnet.usdcMint, mintAuthority: devnet.mintAuthority.address })}\n`,
);

// The slot timer is unref'd; the HTTP server keeps the process alive until stop().
let stopping = false;
const shutdown = () => {
  if (stopping) return;
  stopping = true;
  devnet.stop().then(
    () => process.exit(0),
    (e: unknown) => {
      console.error(e);
      process.exit(1);
    },
  );
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
