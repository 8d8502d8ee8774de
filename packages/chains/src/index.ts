export * from './evm/index.ts';
export * from './solana/index.ts';
