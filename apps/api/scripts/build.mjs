// Bundles the API entry (and the embedded database's worker thread) into apps/api/dist, so that
// `npm start` runs plain JavaScript: no TypeScript transpiled at run time, no loader hooks.
// Dependencies stay in node_modules (external) except the few listed below. Each source keeps its
// own `import.meta.url`, so paths computed from it (repository root, contract artifacts, the
// console's preload) mean what they mean in the sources.
// Skips the build when no input changed since the last one (dist/inputs.json lists them); generates
// the Prisma client first when it is missing or stale.
import { readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleUpToDate, sourcesKeepTheirUrl } from '../../../scripts/bundle-sources.mjs';
import { ensurePrismaClient } from '../../../packages/db/scripts/ensure-client.mjs';
import { presigningNodeFlags } from '../../signer/scripts/build.mjs';

const apiDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(apiDir, '../..');
const outdir = path.join(apiDir, 'dist');
const inputsFile = path.join(outdir, 'inputs.json');
const thisScript = fileURLToPath(import.meta.url);

function upToDate() {
  return bundleUpToDate(inputsFile, path.join(outdir, 'main.js'));
}

// Bundled: our workspaces, and the pure-ESM libraries whose index files re-export hundreds of
// modules we mostly do not use (tree-shaken here: 0.4 s less start). Everything else is loaded from
// node_modules at run time (native addons, WASM and worker files located next to their code).
const BUNDLED_PACKAGES = /^(@wallet\/|(viem|ox|abitype|zod|@noble\/[^/]+|@scure\/[^/]+|@solana\/[^/]+|@solana-program\/[^/]+)(\/|$))/;

/**
 * What `npm start` runs after the build (package.json); tests start the service the same way.
 * The API is mostly idle, so memory at rest matters more than allocation throughput:
 * --max-semi-space-size=4 caps the young generation at 4 MB per semi-space (V8's default grows to
 * 16, and the start-up burst grew it there for good: ~25 MB more at rest); MALLOC_ARENA_MAX=2 keeps
 * glibc from holding an arena per thread; MALLOC_MMAP_THRESHOLD_ fixed at 128 KB makes large blocks
 * (scrypt's 32 MiB per password hash) go back to the system when freed, where glibc's sliding
 * threshold kept them in an arena after the first one. --single-threaded-gc: see presigningNodeFlags
 * (apps/signer/scripts/build.mjs).
 */
export const apiNodeFlags = ['--max-semi-space-size=4', ...presigningNodeFlags];

export const startCommand = {
  args: [...apiNodeFlags, 'apps/api/dist/main.js'],
  env: { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' },
};

export async function buildApi() {
  ensurePrismaClient();
  if (upToDate()) return false;
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: repoRoot,
    entryPoints: { main: 'apps/api/src/main.ts', 'pglite-worker': 'packages/db/src/pglite-worker.ts', 'dkls-presign-thread': 'packages/domain/src/custody/dkls-presign-thread.ts' },
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    chunkNames: 'chunk-[hash]',
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    define: {
      BUNDLED_PGLITE_WORKER: JSON.stringify(pathToFileURL(path.join(outdir, 'pglite-worker.js')).href),
      BUNDLED_DKLS_PRESIGN_THREAD: JSON.stringify(pathToFileURL(path.join(outdir, 'dkls-presign-thread.js')).href),
    },
    plugins: [sourcesKeepTheirUrl(BUNDLED_PACKAGES)],
  });
  // Chunks of earlier builds stay a day for processes still running them (they import chunks lazily).
  const written = new Set(Object.keys(result.metafile.outputs).map((f) => path.resolve(repoRoot, f)));
  for (const name of readdirSync(outdir)) {
    const file = path.join(outdir, name);
    if (name.startsWith('chunk-') && !written.has(file) && Date.now() - statSync(file).mtimeMs > 86_400_000) rmSync(file);
  }
  const inputs = {};
  for (const file of [...Object.keys(result.metafile.inputs).map((f) => path.resolve(repoRoot, f)), thisScript, fileURLToPath(new URL('../../../scripts/bundle-sources.mjs', import.meta.url))]) {
    inputs[file] = statSync(file).mtimeMs;
  }
  writeFileSync(inputsFile, JSON.stringify(inputs));
  return true;
}

if (process.argv[1] === thisScript) await buildApi();
