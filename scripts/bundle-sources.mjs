// What the API's and the signer's bundles share (apps/*/scripts/build.mjs): an esbuild plugin that
// bundles the listed packages and leaves every other bare import to node_modules, each source keeping
// its own `import.meta.url`; and the check that a bundle's recorded inputs are unchanged.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';

/** Bundles the packages `bundled` matches; each .ts source keeps its own import.meta.url. */
export function sourcesKeepTheirUrl(bundled) {
  return {
    name: 'sources-keep-their-url',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => (bundled.test(args.path) ? undefined : { path: args.path, external: true }));
      build.onLoad({ filter: /\.ts$/ }, async (args) => {
        const source = await readFile(args.path, 'utf8');
        return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
      });
    },
  };
}

/** True when `output` exists and every input `inputsFile` records still has its recorded mtime. */
export function bundleUpToDate(inputsFile, output) {
  if (!existsSync(inputsFile) || !existsSync(output)) return false;
  const inputs = JSON.parse(readFileSync(inputsFile, 'utf8'));
  return Object.entries(inputs).every(([file, mtimeMs]) => existsSync(file) && statSync(file).mtimeMs === mtimeMs);
}
