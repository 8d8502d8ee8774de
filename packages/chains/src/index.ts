/**
 * Chain gateways and the registry, used in every environment. Devnets, faucets and test contracts
 * are in '@wallet/chains/devnets' and must not be imported from here.
 */
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
