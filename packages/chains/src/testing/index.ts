/** Test helpers (import from '@wallet/chains/testing'); never imported by production code. */
export { startRpcFaultProxy, type RpcFaultMode, type RpcFaultProxy } from './rpc-proxy.ts';
export {
  setSupplyCap,
  moveVaultSharePrice,
  createLiquidityShortage,
  endLiquidityShortage,
  type LiquidityShortage,
} from '../evm/yield/testing.ts';
export { createVaultLiquidityShortage, endVaultLiquidityShortage, type VaultLiquidityShortage } from '../evm/yield/testing-vault.ts';
export { sendRelayerTransaction } from '../evm/sponsorship/testing.ts';
export { startAlto, altoCliPath, type AltoInstance, type StartAltoOptions } from './alto.ts';
