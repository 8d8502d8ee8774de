/**
 * Compiled contracts of the yield devnet, read at run time from the npm packages (devDependencies
 * of @wallet/chains) — never copied into this repository (BUSL-1.1 / GPL-2.0-or-later):
 * - `@aave/core-v3@1.19.3`: hardhat artifacts (abi, bytecode, linkReferences);
 * - `@morpho-org/morpho-blue-bundlers@1.1.2`: typechain factories. Requiring them would load
 *   ethers v6, so the factory file runs in a bare VM context with a stub `ethers` and we keep its
 *   static `abi`/`bytecode`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';
import type { Abi, Address, Hex } from 'viem';

export interface Artifact {
  abi: Abi;
  bytecode: Hex;
}

interface HardhatArtifact extends Artifact {
  linkReferences: Record<string, Record<string, { start: number; length: number }[]>>;
}

const require = createRequire(import.meta.url);

function resolveIn(pkg: string, file: string): string {
  try {
    return require.resolve(`${pkg}/${file}`);
  } catch (err) {
    throw new Error(`${pkg}/${file} not found: the yield devnet needs the devDependencies of @wallet/chains (npm ci without --omit=dev)`, {
      cause: err,
    });
  }
}

const aaveCache = new Map<string, HardhatArtifact>();

/** `path` is relative to `@aave/core-v3/artifacts/contracts/`, e.g. `protocol/pool/Pool.sol/Pool.json`. */
function aaveRaw(path: string): HardhatArtifact {
  let a = aaveCache.get(path);
  if (!a) {
    a = JSON.parse(readFileSync(resolveIn('@aave/core-v3', `artifacts/contracts/${path}`), 'utf8')) as HardhatArtifact;
    aaveCache.set(path, a);
  }
  return a;
}

/** The ABI of an Aave artifact (no linking needed to call a deployed contract). */
export function aaveAbi(path: string): Abi {
  return aaveRaw(path).abi;
}

/**
 * An Aave artifact with its libraries linked: hardhat's `linkReferences` give byte offsets of the
 * 20-byte placeholders, replaced by the deployed library addresses (by library name).
 */
export function aaveArtifact(path: string, libraries: Record<string, Address> = {}): Artifact {
  const raw = aaveRaw(path);
  let code = raw.bytecode.slice(2);
  for (const libs of Object.values(raw.linkReferences ?? {})) {
    for (const [name, refs] of Object.entries(libs)) {
      const address = libraries[name];
      if (!address) throw new Error(`${path} needs library ${name}`);
      for (const { start, length } of refs) {
        code = code.slice(0, start * 2) + address.slice(2).toLowerCase() + code.slice((start + length) * 2);
      }
    }
  }
  if (code.includes('__')) throw new Error(`${path}: unlinked placeholder left`);
  return { abi: raw.abi, bytecode: `0x${code}` };
}

/** Aave artifact paths used by the deployment (under artifacts/contracts/). */
export const AAVE = {
  addressesProvider: 'protocol/configuration/PoolAddressesProvider.sol/PoolAddressesProvider.json',
  aclManager: 'protocol/configuration/ACLManager.sol/ACLManager.json',
  pool: 'protocol/pool/Pool.sol/Pool.json',
  configurator: 'protocol/pool/PoolConfigurator.sol/PoolConfigurator.json',
  rateStrategy: 'protocol/pool/DefaultReserveInterestRateStrategy.sol/DefaultReserveInterestRateStrategy.json',
  aToken: 'protocol/tokenization/AToken.sol/AToken.json',
  stableDebtToken: 'protocol/tokenization/StableDebtToken.sol/StableDebtToken.json',
  variableDebtToken: 'protocol/tokenization/VariableDebtToken.sol/VariableDebtToken.json',
  dataProvider: 'misc/AaveProtocolDataProvider.sol/AaveProtocolDataProvider.json',
  oracle: 'misc/AaveOracle.sol/AaveOracle.json',
  aggregator: 'mocks/oracle/CLAggregators/MockAggregator.sol/MockAggregator.json',
  mintableErc20: 'mocks/tokens/MintableERC20.sol/MintableERC20.json',
  weth9: 'dependencies/weth/WETH9.sol/WETH9.json',
  logic: (name: string) => `protocol/libraries/logic/${name}.sol/${name}.json`,
} as const;

const morphoCache = new Map<string, Artifact>();

class EthersStub {}

/** `path` is relative to `@morpho-org/morpho-blue-bundlers/types/factories/`, without `.js`. */
export function morphoArtifact(path: string): Artifact {
  let a = morphoCache.get(path);
  if (a) return a;
  const file = resolveIn('@morpho-org/morpho-blue-bundlers', `types/factories/${path}.js`);
  const exports: Record<string, unknown> = {};
  const ethersStub = { ContractFactory: EthersStub, Interface: EthersStub, Contract: EthersStub };
  runInNewContext(readFileSync(file, 'utf8'), {
    exports,
    module: { exports },
    require: (id: string) => {
      if (id === 'ethers') return ethersStub;
      throw new Error(`${path} requires ${id}`);
    },
  });
  const factory = Object.values(exports).find((f): f is Partial<Artifact> => typeof f === 'function' && 'abi' in f && 'bytecode' in f);
  if (!factory?.abi || !factory.bytecode) throw new Error(`${path}: no factory with abi and bytecode`);
  a = { abi: factory.abi, bytecode: factory.bytecode };
  morphoCache.set(path, a);
  return a;
}

/** Morpho factory paths (under types/factories/). */
export const MORPHO = {
  morpho: 'lib/morpho-blue/src/Morpho__factory',
  metaMorpho: 'lib/metamorpho/src/MetaMorpho__factory',
  bundler: 'src/base/BaseBundlerV2__factory',
  adaptiveCurveIrm: 'lib/morpho-blue-irm/src/adaptive-curve-irm/AdaptiveCurveIrm__factory',
  oracleMock: 'src/mocks/OracleMock__factory',
  erc20Mock: 'src/mocks/ERC20Mock__factory',
} as const;
