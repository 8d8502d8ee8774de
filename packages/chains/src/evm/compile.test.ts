import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARTIFACTS_DIR, compileContracts, formatArtifact } from './compile.ts';

describe('contract artifacts', () => {
  it('rebuild byte-identically from contracts/*.sol', () => {
    const { artifacts } = compileContracts();
    expect(artifacts.map((a) => a.contractName)).toContain('TestUSDC');
    const committed = readdirSync(ARTIFACTS_DIR).filter((f) => f.endsWith('.json')).sort();
    expect(committed).toEqual(artifacts.map((a) => `${a.contractName}.json`).sort());
    for (const a of artifacts) {
      const onDisk = readFileSync(join(ARTIFACTS_DIR, `${a.contractName}.json`), 'utf8');
      const parsed = JSON.parse(onDisk) as { bytecode: string; solcVersion: string };
      expect(parsed.bytecode).toBe(a.bytecode);
      expect(parsed.solcVersion).toMatch(/^0\.8\.37\+/);
      expect(onDisk).toBe(formatArtifact(a)); // whole file, formatting included
    }
  });
});
