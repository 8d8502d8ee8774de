/**
 * The devnet side of the chains package (import from '@wallet/chains/devnets'): anvil, the LiteSVM
 * JSON-RPC devnet, faucets, the test USDC contract and SPL helpers. Local mode and tests only: a
 * production process never loads this module (apps/api/src/main.ts imports it only in local mode).
 */
export * from './evm/index.ts';
export * from './solana/index.ts';
export { writeFileAtomic } from './atomic-file.ts';
