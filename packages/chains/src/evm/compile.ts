/**
 * Solidity build for the local devnet contracts (packages/chains/contracts/*.sol).
 *
 * Used by scripts/build-contracts.ts (writes src/evm/artifacts/<Name>.json) and by the
 * reproducibility test (recompiles in memory and compares with the committed artifacts).
 * Sources are keyed by path relative to contracts/ (and `@openzeppelin/...` for library
 * imports), never by absolute path, so the metadata hash — and thus the bytecode — does not
 * depend on where the repository is checked out.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Abi, Hex } from 'viem';

const require = createRequire(import.meta.url);

// solc (soljson, ~9 MB of wasm-in-js) is loaded on first use, not when this module is imported.
type Solc = typeof import('solc');
let solcInstance: Solc | undefined;
function loadSolc(): Solc {
  solcInstance ??= require('solc') as Solc;
  return solcInstance;
}

export const CONTRACTS_DIR = fileURLToPath(new URL('../../contracts/', import.meta.url));
export const ARTIFACTS_DIR = fileURLToPath(new URL('./artifacts/', import.meta.url));

export const SOLC_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
} as const;

export interface ContractArtifact {
  contractName: string;
  abi: Abi;
  bytecode: Hex;
  solcVersion: string;
}

export interface CompileResult {
  artifacts: ContractArtifact[];
  warnings: string[];
}

interface SolcMessage {
  severity: 'error' | 'warning' | 'info';
  formattedMessage?: string;
  message: string;
}

interface SolcOutput {
  errors?: SolcMessage[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
}

/** Resolves `@scope/pkg/path/File.sol` / `pkg/path/File.sol` against node_modules. */
function resolvePackageImport(importPath: string): string | undefined {
  const parts = importPath.split('/');
  const pkgParts = importPath.startsWith('@') ? parts.slice(0, 2) : parts.slice(0, 1);
  const rest = parts.slice(pkgParts.length);
  if (rest.length === 0) return undefined;
  try {
    const pkgJson = require.resolve(`${pkgParts.join('/')}/package.json`);
    return join(dirname(pkgJson), ...rest);
  } catch {
    return undefined;
  }
}

function makeImportCallback(contractsDir: string) {
  return (importPath: string): { contents: string } | { error: string } => {
    const local = resolve(contractsDir, importPath);
    const candidates = [
      // Keep local resolution inside contracts/.
      local.startsWith(resolve(contractsDir) + sep) ? local : undefined,
      resolvePackageImport(importPath),
    ];
    for (const file of candidates) {
      if (file && existsSync(file)) return { contents: readFileSync(file, 'utf8') };
    }
    return { error: `File not found: ${importPath}` };
  };
}

/** The solc version string, e.g. `0.8.37+commit.xxxxxxxx.Emscripten.clang`. */
export function solcVersion(): string {
  return loadSolc().version() as string;
}

/**
 * Compiles every `*.sol` in `contractsDir` (default: packages/chains/contracts) with the pinned
 * settings. Returns one artifact per deployable contract (non-empty bytecode) defined in those
 * files, sorted by name. Throws on compiler errors.
 */
export function compileContracts(contractsDir: string = CONTRACTS_DIR): CompileResult {
  const files = readdirSync(contractsDir)
    .filter((f) => f.endsWith('.sol'))
    .sort();
  const sources: Record<string, { content: string }> = {};
  const outputSelection: Record<string, Record<string, string[]>> = {};
  for (const f of files) {
    sources[f] = { content: readFileSync(join(contractsDir, f), 'utf8') };
    outputSelection[f] = { '*': ['abi', 'evm.bytecode.object'] };
  }
  const input = { language: 'Solidity', sources, settings: { ...SOLC_SETTINGS, outputSelection } };
  const output = JSON.parse(
    loadSolc().compile(JSON.stringify(input), { import: makeImportCallback(contractsDir) }) as string,
  ) as SolcOutput;

  const messages = output.errors ?? [];
  const errors = messages.filter((m) => m.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage ?? e.message).join('\n')}`);
  }
  const version = solcVersion();
  const artifacts: ContractArtifact[] = [];
  for (const f of files) {
    for (const [contractName, c] of Object.entries(output.contracts?.[f] ?? {})) {
      if (!c.evm.bytecode.object) continue; // interfaces / abstract contracts
      artifacts.push({ contractName, abi: c.abi, bytecode: `0x${c.evm.bytecode.object}`, solcVersion: version });
    }
  }
  artifacts.sort((a, b) => a.contractName.localeCompare(b.contractName));
  return {
    artifacts,
    warnings: messages.filter((m) => m.severity === 'warning').map((m) => m.formattedMessage ?? m.message),
  };
}

/** Stable on-disk form of an artifact (2-space JSON, trailing newline). */
export function formatArtifact(a: ContractArtifact): string {
  const ordered: ContractArtifact = {
    contractName: a.contractName,
    abi: a.abi,
    bytecode: a.bytecode,
    solcVersion: a.solcVersion,
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}
