/**
 * Contracts of the sponsorship devnet, read at run time from the npm packages (devDependencies of
 * @wallet/chains), never copied into this repository (both MIT):
 * - `@account-abstraction/contracts@0.8.0`: hardhat artifacts of EntryPoint and Simple7702Account;
 * - `@pimlico/mock-paymaster@0.0.7`: the SingletonPaymasterV8 init code and ABI in its ESM build.
 *   Its package `exports` expose only the server entry, so the two files are imported by path.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Abi, Address, Hex } from 'viem';

export interface SponsorshipArtifact {
  abi: Abi;
  bytecode: Hex;
}

const require = createRequire(import.meta.url);

function resolveIn(pkg: string, file: string): string {
  try {
    return require.resolve(`${pkg}/${file}`);
  } catch (err) {
    throw new Error(`${pkg}/${file} not found: the sponsorship devnet needs the devDependencies of @wallet/chains (npm ci without --omit=dev)`, {
      cause: err,
    });
  }
}

const cache = new Map<string, SponsorshipArtifact>();

function accountAbstraction(name: 'EntryPoint' | 'Simple7702Account'): SponsorshipArtifact {
  let artifact = cache.get(name);
  if (!artifact) {
    const raw = JSON.parse(readFileSync(resolveIn('@account-abstraction/contracts', `artifacts/${name}.json`), 'utf8')) as SponsorshipArtifact;
    artifact = { abi: raw.abi, bytecode: raw.bytecode };
    cache.set(name, artifact);
  }
  return artifact;
}

export const entryPointArtifact = (): SponsorshipArtifact => accountAbstraction('EntryPoint');
export const simple7702AccountArtifact = (): SponsorshipArtifact => accountAbstraction('Simple7702Account');

interface PaymasterModule {
  initCode: (owner: Address) => Hex;
  abi: Abi;
}

let paymasterModule: Promise<PaymasterModule> | undefined;

/** `getSingletonPaymaster08InitCode(owner)` (owner = manager = signer) and `singletonPaymaster08Abi`. */
export function singletonPaymasterV8(): Promise<PaymasterModule> {
  paymasterModule ??= (async () => {
    let root: string;
    try {
      root = join(dirname(require.resolve('@pimlico/mock-paymaster')), '..', '_esm');
    } catch (err) {
      throw new Error('@pimlico/mock-paymaster not found: the sponsorship devnet needs the devDependencies of @wallet/chains', { cause: err });
    }
    const constants = (await import(pathToFileURL(join(root, 'constants.js')).href)) as { getSingletonPaymaster08InitCode: (owner: Address) => Hex };
    const abis = (await import(pathToFileURL(join(root, 'helpers', 'abi.js')).href)) as { singletonPaymaster08Abi: Abi };
    return { initCode: constants.getSingletonPaymaster08InitCode, abi: abis.singletonPaymaster08Abi };
  })();
  return paymasterModule;
}
