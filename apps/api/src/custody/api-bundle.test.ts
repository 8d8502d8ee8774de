import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildApi } from '../../scripts/build.mjs';
import { repoRoot } from '../config.ts';

/** The modules that open keys: they run in the signer process, never in the API's. */
const KEY_HOLDING_MODULES = [
  'packages/domain/src/custody/local-vault.ts',
  'packages/domain/src/custody/shares.ts',
  'packages/domain/src/custody/joined-key.ts',
  'packages/domain/src/custody/service-key-crypto.ts',
  'packages/domain/src/migration/enclave-key-crypto.ts',
  'apps/signer/src/handlers/index.ts',
];

/** Strings only the share-joining and key-opening code carries (its refusals and entry points). */
const KEY_HOLDING_MARKERS = ['key share cannot be decrypted', 'service key cannot be decrypted', 'enclave key cannot be decrypted', 'withWalletSecretAsync', 'joinShares', 'createLocalKeyVault'];

describe('the API bundle (what npm start runs)', () => {
  it('holds none of the code that joins key shares or opens a service-role share', async () => {
    await buildApi();
    const dist = path.join(repoRoot, 'apps/api/dist');
    const inputs = Object.keys(JSON.parse(readFileSync(path.join(dist, 'inputs.json'), 'utf8')) as Record<string, number>).map((file) => path.relative(repoRoot, file));
    // The build read the domain package (so an empty list cannot pass for a clean one).
    expect(inputs).toContain('packages/domain/src/signing/pipeline.ts');
    expect(inputs.filter((file) => KEY_HOLDING_MODULES.includes(file))).toEqual([]);
    // Chunks of earlier builds may stay a while (processes still running them): read this build's outputs only.
    const builtAt = statSync(path.join(dist, 'inputs.json')).mtimeMs - 60_000;
    const outputs = readdirSync(dist).filter((name) => name.endsWith('.js') && statSync(path.join(dist, name)).mtimeMs >= builtAt);
    expect(outputs).toContain('main.js');
    for (const name of outputs) {
      const code = readFileSync(path.join(dist, name), 'utf8');
      for (const marker of KEY_HOLDING_MARKERS) expect(code.includes(marker), `${name} contains "${marker}"`).toBe(false);
    }
  });
});
