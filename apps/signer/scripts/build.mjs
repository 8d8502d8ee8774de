// Bundles the signer (apps/signer/src/main.ts) into apps/signer/dist/main.js, so the process runs
// plain JavaScript: no TypeScript transpiled at run time, no loader hooks. Same approach as
// apps/api/scripts/build.mjs: our workspaces (and zod) are bundled, other dependencies stay in
// node_modules (native addons and WASM located next to their code); each source keeps its own
// `import.meta.url`, so paths computed from it (repository root, package.json) mean what they mean
// in the sources. Skips the build when no input changed since the last one (dist/inputs.json).
import { renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleUpToDate, sourcesKeepTheirUrl } from '../../../scripts/bundle-sources.mjs';
import { presigningNodeFlags } from './node-flags.mjs';

const signerDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(signerDir, '../..');
const outdir = path.join(signerDir, 'dist');
const inputsFile = path.join(outdir, 'inputs.json');
const thisScript = fileURLToPath(import.meta.url);

/** The files a build would read that did not exist last time (a new handlers module) are caught by the importing file's mtime. */
export function signerBuildUpToDate() {
  return bundleUpToDate(inputsFile, path.join(outdir, 'main.js'));
}

const BUNDLED_PACKAGES = /^(@wallet\/|zod(\/|$))/;

export { presigningNodeFlags };

/** What `npm start -w @wallet/signer` runs after the build, relative to the repository root; the supervisor starts the signer the same way. */
export const signerStartCommand = {
  args: [...presigningNodeFlags, 'apps/signer/dist/main.js'],
  env: {},
};

/** Builds dist/main.js when an input changed; true when it built. */
export async function buildSigner() {
  if (signerBuildUpToDate()) return false;
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: repoRoot,
    entryPoints: { main: 'apps/signer/src/main.ts', 'dkls-presign-thread': 'packages/domain/src/custody/dkls-presign-thread.ts' },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    define: { BUNDLED_DKLS_PRESIGN_THREAD: JSON.stringify(pathToFileURL(path.join(outdir, 'dkls-presign-thread.js')).href) },
    plugins: [sourcesKeepTheirUrl(BUNDLED_PACKAGES)],
  });
  const inputs = {};
  for (const file of [...Object.keys(result.metafile.inputs).map((f) => path.resolve(repoRoot, f)), thisScript, fileURLToPath(new URL('../../../scripts/bundle-sources.mjs', import.meta.url))]) {
    inputs[file] = statSync(file).mtimeMs;
  }
  // Written last and atomically: a build interrupted midway is redone.
  writeFileSync(`${inputsFile}.tmp`, JSON.stringify(inputs));
  renameSync(`${inputsFile}.tmp`, inputsFile);
  return true;
}

if (process.argv[1] === thisScript) await buildSigner();
