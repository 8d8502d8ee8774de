// Bundles the signer (apps/signer/src/main.ts) into apps/signer/dist/main.js, so the process runs
// plain JavaScript: no TypeScript transpiled at run time, no loader hooks. Same approach as
// apps/api/scripts/build.mjs: our workspaces (and zod) are bundled, other dependencies stay in
// node_modules (native addons and WASM located next to their code); each source keeps its own
// `import.meta.url`, so paths computed from it (repository root, package.json) mean what they mean
// in the sources. Skips the build when no input changed since the last one (dist/inputs.json).
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const signerDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(signerDir, '../..');
const outdir = path.join(signerDir, 'dist');
const inputsFile = path.join(outdir, 'inputs.json');
const thisScript = fileURLToPath(import.meta.url);

/** The files a build would read that did not exist last time (a new handlers module) are caught by the importing file's mtime. */
export function signerBuildUpToDate() {
  if (!existsSync(inputsFile) || !existsSync(path.join(outdir, 'main.js'))) return false;
  const inputs = JSON.parse(readFileSync(inputsFile, 'utf8'));
  return Object.entries(inputs).every(([file, mtimeMs]) => existsSync(file) && statSync(file).mtimeMs === mtimeMs);
}

const BUNDLED_PACKAGES = /^(@wallet\/|zod(\/|$))/;

const sourcesKeepTheirUrl = {
  name: 'sources-keep-their-url',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (BUNDLED_PACKAGES.test(args.path) ? undefined : { path: args.path, external: true }));
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};

/** What `npm start -w @wallet/signer` runs after the build, relative to the repository root; the supervisor starts the signer the same way. */
export const signerStartCommand = {
  args: ['apps/signer/dist/main.js'],
  env: {},
};

/** Builds dist/main.js when an input changed; true when it built. */
export async function buildSigner() {
  if (signerBuildUpToDate()) return false;
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: repoRoot,
    entryPoints: { main: 'apps/signer/src/main.ts' },
    outdir,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [sourcesKeepTheirUrl],
  });
  const inputs = {};
  for (const file of [...Object.keys(result.metafile.inputs).map((f) => path.resolve(repoRoot, f)), thisScript]) {
    inputs[file] = statSync(file).mtimeMs;
  }
  // Written last and atomically: a build interrupted midway is redone.
  writeFileSync(`${inputsFile}.tmp`, JSON.stringify(inputs));
  renameSync(`${inputsFile}.tmp`, inputsFile);
  return true;
}

if (process.argv[1] === thisScript) await buildSigner();
