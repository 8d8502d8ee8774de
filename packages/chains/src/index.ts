export * from './evm/index.ts';
export * from './solana/index.ts';
export { createEvmGateway, classifyEvmRejection, type CreateEvmGatewayOptions } from './gateways/evm-gateway.ts';
export {
  createSolanaGateway,
  classifySolanaRejection,
  parseJsonWithU64,
  MAX_SIGNATURES_PER_STATUS_CALL,
  type CreateSolanaGatewayOptions,
} from './gateways/solana-gateway.ts';
export { JsonRpcError } from './gateways/json-rpc.ts';
export { createChainRegistry, type ChainEntry, type ChainRegistry } from './registry.ts';
