import path from 'node:path';
import { describe, expect, it } from 'vitest';

describe('@wallet/signer/client', () => {
  it('imports nothing that touches keys, KEKs, the store or the handlers', async () => {
    const esbuild = await import('esbuild');
    const result = await esbuild.build({
      entryPoints: [path.join(import.meta.dirname, 'index.ts')],
      bundle: true,
      write: false,
      metafile: true,
      platform: 'node',
      format: 'esm',
      logLevel: 'silent',
      packages: 'external',
    });
    const inputs = Object.keys(result.metafile.inputs);
    const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
    expect(inputs.filter((file) => /src\/(handlers|store|limits|server)\/|main\.ts/.test(file))).toEqual([]);
    expect(imports.filter((p) => /^@wallet\/|sodium|frost/.test(p))).toEqual([]);
  });
});
