import { toFunctionSignature, type Abi, type AbiFunction } from 'viem';
import { describe, expect, it } from 'vitest';
import { AAVE_DATA_PROVIDER_ABI, AAVE_POOL_ABI, BUNDLER_V2_ABI, ERC20_ABI, ERC4626_VAULT_ABI } from './abis.ts';
import { AAVE, MORPHO, aaveAbi, morphoArtifact } from './artifacts.ts';

const signatures = (abi: Abi | readonly AbiFunction[]) =>
  new Map(
    (abi as Abi)
      .filter((i): i is AbiFunction => i.type === 'function')
      .map((f) => [toFunctionSignature(f), { outputs: f.outputs.map((o) => o.type), mutability: f.stateMutability }]),
  );

describe('hand-written yield ABI fragments', () => {
  const cases: [string, readonly AbiFunction[], Abi][] = [
    ['Aave Pool', AAVE_POOL_ABI, aaveAbi(AAVE.pool)],
    ['Aave data provider', AAVE_DATA_PROVIDER_ABI, aaveAbi(AAVE.dataProvider)],
    ['MetaMorpho (ERC-4626)', ERC4626_VAULT_ABI, morphoArtifact(MORPHO.metaMorpho).abi],
    ['ERC-20 (MetaMorpho shares)', ERC20_ABI, morphoArtifact(MORPHO.metaMorpho).abi],
    ['Bundler V2', BUNDLER_V2_ABI, morphoArtifact(MORPHO.bundler).abi],
  ];
  it.each(cases)('%s: every function exists in the real ABI with the same inputs, outputs and mutability', (_name, ours, real) => {
    const theirs = signatures(real);
    for (const [sig, shape] of signatures(ours)) expect({ sig, ...theirs.get(sig) }).toEqual({ sig, ...shape });
  });
});
