/**
 * Compiles packages/chains/contracts/*.sol and writes src/evm/artifacts/<Name>.json.
 * Run: node --import tsx packages/chains/scripts/build-contracts.ts
 * The artifacts are committed; src/evm/compile.test.ts checks they rebuild identically.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ARTIFACTS_DIR, compileContracts, formatArtifact } from '../src/evm/compile.ts';

const started = Date.now();
const { artifacts, warnings } = compileContracts();
for (const w of warnings) console.warn(w);
mkdirSync(ARTIFACTS_DIR, { recursive: true });
for (const a of artifacts) {
  const file = join(ARTIFACTS_DIR, `${a.contractName}.json`);
  writeFileSync(file, formatArtifact(a));
  console.log(`wrote ${file} (${(a.bytecode.length - 2) / 2} bytes, ${a.solcVersion})`);
}
console.log(`compiled ${artifacts.length} contract(s) in ${Date.now() - started} ms`);
