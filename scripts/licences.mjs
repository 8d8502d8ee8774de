// `npm run licences` (also run by `npm test`'s static checks, scripts/licences.test.mjs): the
// licence of every package in package-lock.json, split into the production set (what a production
// process can load: the dependencies, optional dependencies and required peers of the apps `npm
// start` runs, followed transitively through the lock the way Node resolves them) and dev-only (the
// rest: the local devnets, the tests, the build tools). Production packages must be permissive
// (PERMISSIVE) or listed in PRODUCTION_EXCEPTIONS; dev-only packages permissive or listed in
// DEV_ONLY_EXCEPTIONS (or the production list). Our own packages must say Apache-2.0. Any other
// licence, a missing one, a dev-only exception that reached the production set, or an exception
// that matches no package fails. docs/development.md#licences says why each exception is allowed.
// `--list` prints every package with its set and licence.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The workspaces whose processes `npm start` runs (the API, its signer, the console). */
export const PRODUCTION_ROOTS = ['apps/api', 'apps/signer', 'apps/admin'];

/** The licence of this repository, which each of its own package.json files must declare. */
export const OWN_LICENCE = 'Apache-2.0';

/**
 * SPDX identifiers allowed anywhere without a listing: they ask for a notice or attribution at most,
 * never for our sources or for changes to theirs. MPL-2.0, EPL-2.0 (file-level copyleft), the
 * LGPL and GPL families and BUSL-1.1 are not here: such a package must be listed by name.
 */
export const PERMISSIVE = new Set([
  '0BSD', 'Apache-2.0', 'BlueOak-1.0.0', 'BSD-2-Clause', 'BSD-3-Clause', 'BSL-1.0', 'CC-BY-4.0',
  'CC0-1.0', 'ISC', 'MIT', 'MIT-0', 'Python-2.0', 'Unlicense', 'Zlib',
]);

/**
 * Production packages whose declared licence is not a permissive expression. Each entry names the
 * packages and the exact licence string it accepts (null: no licence field), so a new version with
 * another licence fails again.
 */
export const PRODUCTION_EXCEPTIONS = [
  {
    names: [
      '@img/sharp-libvips-darwin-arm64', '@img/sharp-libvips-darwin-x64', '@img/sharp-libvips-linux-arm',
      '@img/sharp-libvips-linux-arm64', '@img/sharp-libvips-linux-ppc64', '@img/sharp-libvips-linux-riscv64',
      '@img/sharp-libvips-linux-s390x', '@img/sharp-libvips-linux-x64', '@img/sharp-libvips-linuxmusl-arm64',
      '@img/sharp-libvips-linuxmusl-x64',
    ],
    licence: 'LGPL-3.0-or-later',
    reason: "libvips, the prebuilt shared library under sharp, Next's optional image optimizer (the console uses no next/image). Loaded unmodified as a separate dynamic library installed from npm, never copied into our sources or bundles, so the LGPL asks nothing of our code.",
  },
  {
    names: ['@img/sharp-wasm32'],
    licence: 'Apache-2.0 AND LGPL-3.0-or-later AND MIT',
    reason: "sharp's WebAssembly build (libvips inside), installed only where no native binary fits; same terms as the libvips binaries.",
  },
  {
    names: ['@img/sharp-win32-arm64', '@img/sharp-win32-ia32', '@img/sharp-win32-x64'],
    licence: 'Apache-2.0 AND LGPL-3.0-or-later',
    reason: "sharp's Windows binaries, which ship libvips in the same package; same terms as the libvips binaries.",
  },
  {
    names: ['decko', 'stickyfill'],
    licence: null,
    reason: 'Dependencies of redoc (the /docs page) without a license field; the LICENSE file each ships is the MIT licence.',
  },
  {
    names: ['url-template'],
    licence: 'BSD',
    reason: 'A dependency of redoc whose license field says only "BSD"; its LICENSE file is the 3-clause BSD licence.',
  },
];

const UNISWAP =
  'Solidity sources that @account-abstraction/contracts (the ERC-4337 EntryPoint the local bundler devnet deploys) depends on through @uniswap/v3-periphery; nothing of Uniswap is compiled, deployed or loaded.';

/** Copyleft and source-available packages allowed only outside the production set. */
export const DEV_ONLY_EXCEPTIONS = [
  {
    names: ['@aave/core-v3'],
    licence: 'BUSL-1.1',
    reason: "The Aave pool contracts the local EVM devnet deploys for the local yield markets (devDependency of @wallet/chains, read from node_modules by the devnet only). Its LICENSE.md's change date (27 January 2023 at the latest) has passed, so the code is MIT now; the package.json still says BUSL-1.1.",
  },
  {
    names: ['@morpho-org/morpho-blue-bundlers'],
    licence: 'GPL-2.0-or-later',
    reason: 'The Morpho contracts the local EVM devnet deploys for the local vault market (devDependency of @wallet/chains); run only on a local test chain, never linked into or shipped with the service.',
  },
  {
    names: ['@pimlico/alto'],
    licence: 'GPL-3.0-or-later',
    reason: 'The ERC-4337 bundler the local devnet runs as a separate process for sponsored transfers (devDependency of @wallet/chains); never linked into or shipped with the service.',
  },
  {
    names: ['@uniswap/v3-periphery'],
    licence: 'GPL-2.0-or-later',
    reason: UNISWAP,
  },
  {
    names: ['@uniswap/lib', '@uniswap/v2-core'],
    licence: 'GPL-3.0-or-later',
    reason: UNISWAP,
  },
  {
    names: ['@uniswap/v3-core'],
    licence: 'BUSL-1.1',
    reason: `${UNISWAP} (Its LICENSE's change date, 2023-04-01, has passed: GPL-2.0-or-later now.)`,
  },
  {
    names: [
      'lightningcss', 'lightningcss-android-arm64', 'lightningcss-darwin-arm64', 'lightningcss-darwin-x64',
      'lightningcss-freebsd-x64', 'lightningcss-linux-arm-gnueabihf', 'lightningcss-linux-arm64-gnu',
      'lightningcss-linux-arm64-musl', 'lightningcss-linux-x64-gnu', 'lightningcss-linux-x64-musl',
      'lightningcss-win32-arm64-msvc', 'lightningcss-win32-x64-msvc',
    ],
    licence: 'MPL-2.0',
    reason: "Tailwind's CSS compiler, used unmodified when the console is built; its output (our CSS) is not covered by the MPL.",
  },
  {
    names: ['elkjs'],
    licence: 'EPL-2.0',
    reason: "A graph layout library under Prisma Studio (@prisma/studio-core, part of the prisma CLI that generates the client); never loaded by a production process.",
  },
];

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Whether an SPDX expression (AND, OR, WITH, parentheses; operators in any case) is satisfied by permissive licences only. */
export function isPermissive(expression, permissive = PERMISSIVE) {
  if (typeof expression !== 'string' || expression.trim() === '') return false;
  const tokens = expression.replace(/[()]/g, ' $& ').trim().split(/\s+/);
  let at = 0;
  const peek = () => tokens[at]?.toUpperCase();
  const atom = () => {
    if (tokens[at] === '(') {
      at += 1;
      const value = or();
      if (tokens[at] !== ')') throw new Error('unbalanced parentheses');
      at += 1;
      return value;
    }
    const id = tokens[at];
    if (id === undefined || id === ')' || ['AND', 'OR', 'WITH'].includes(id.toUpperCase())) throw new Error('licence identifier expected');
    at += 1;
    // An exception (e.g. "WITH LLVM-exception") only adds permissions.
    if (peek() === 'WITH') at += 2;
    return permissive.has(id.replace(/\+$/, ''));
  };
  const and = () => {
    let value = atom();
    while (peek() === 'AND') {
      at += 1;
      value = atom() && value;
    }
    return value;
  };
  const or = () => {
    let value = and();
    while (peek() === 'OR') {
      at += 1;
      value = and() || value;
    }
    return value;
  };
  try {
    const value = or();
    return at === tokens.length && value;
  } catch {
    return false;
  }
}

/** The lock entry key a package `name` required from `from` resolves to (Node's node_modules walk), or undefined. */
export function resolveFrom(packages, from, name) {
  let base = from;
  for (;;) {
    const candidate = base ? `${base}/node_modules/${name}` : `node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const nested = base.lastIndexOf('/node_modules/');
    if (nested >= 0) base = base.slice(0, nested);
    else if (base.startsWith('node_modules/')) base = '';
    else base = base.includes('/') ? base.slice(0, base.lastIndexOf('/')) : '';
  }
}

const nameOf = (key, entry) => entry.name ?? key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);

/**
 * The production set: lock keys reachable from `roots` through dependencies, optional dependencies
 * and required peer dependencies (an optional peer is the consumer's choice, and ours are in our
 * own dependencies). Returns key → the key that first required it (to explain the path).
 */
export function productionSet(packages, roots = PRODUCTION_ROOTS) {
  const via = new Map();
  const queue = [];
  for (const root of roots) {
    if (!packages[root]) throw new Error(`package-lock.json has no workspace ${root}`);
    via.set(root, null);
    queue.push(root);
  }
  while (queue.length > 0) {
    const key = queue.shift();
    const entry = packages[key];
    const optionalPeers = new Set(Object.entries(entry.peerDependenciesMeta ?? {}).filter(([, meta]) => meta?.optional).map(([name]) => name));
    const wanted = [
      ...Object.keys(entry.dependencies ?? {}).map((name) => [name, false]),
      ...Object.keys(entry.optionalDependencies ?? {}).map((name) => [name, true]),
      ...Object.keys(entry.peerDependencies ?? {}).filter((name) => !optionalPeers.has(name)).map((name) => [name, false]),
    ];
    for (const [name, optional] of wanted) {
      let found = resolveFrom(packages, key, name);
      if (found && packages[found].link) found = packages[found].resolved;
      if (!found || !packages[found]) {
        // Optional dependencies for other platforms may be absent from the lock.
        if (!optional) throw new Error(`${key} needs ${name}, which package-lock.json does not hold`);
        continue;
      }
      if (via.has(found)) continue;
      via.set(found, key);
      queue.push(found);
    }
  }
  return via;
}

/** A lock entry's licence: its `license`, else the installed package.json's license/licenses; null when none. */
export function licenceOf(key, entry, readPackageJson) {
  if (typeof entry.license === 'string') return entry.license;
  const manifest = readPackageJson(key);
  if (!manifest) return null;
  if (typeof manifest.license === 'string') return manifest.license;
  if (typeof manifest.license?.type === 'string') return manifest.license.type;
  if (Array.isArray(manifest.licenses)) {
    const types = manifest.licenses.map((licence) => (typeof licence === 'string' ? licence : licence?.type)).filter(Boolean);
    if (types.length > 0) return types.length === 1 ? types[0] : `(${types.join(' OR ')})`;
  }
  return null;
}

export const readInstalledPackageJson = (root) => (key) => {
  const file = path.join(root, key, 'package.json');
  return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined;
};

function exceptionFor(exceptions, name, licence) {
  return exceptions.find((exception) => exception.names.includes(name) && exception.licence === licence);
}

/**
 * Checks a parsed package-lock.json. Returns every package with its set and licence, and the
 * problems (each a sentence naming the package); no problems means the check passes.
 */
export function checkLicences(lock, options = {}) {
  const {
    readPackageJson = readInstalledPackageJson(repoRoot),
    roots = PRODUCTION_ROOTS,
    productionExceptions = PRODUCTION_EXCEPTIONS,
    devOnlyExceptions = DEV_ONLY_EXCEPTIONS,
  } = options;
  const packages = lock.packages ?? {};
  const production = productionSet(packages, roots);
  const problems = [];
  const used = new Set();
  const rows = [];
  const pathTo = (key) => {
    const chain = [];
    for (let at = key; at != null; at = production.get(at)) chain.unshift(at);
    return chain.join(' > ');
  };
  for (const [key, entry] of Object.entries(packages)) {
    if (entry.link) continue;
    const own = key === '' || !key.includes('node_modules/');
    const name = key === '' ? lock.name ?? '(root)' : nameOf(key, entry);
    const licence = licenceOf(key, entry, readPackageJson);
    const set = production.has(key) ? 'production' : 'dev-only';
    rows.push({ name, version: entry.version ?? '', key, set, licence, markedDev: Boolean(entry.dev) });
    if (own) {
      if (licence !== OWN_LICENCE) problems.push(`${key || 'package.json'} (${name}) must declare "license": "${OWN_LICENCE}", not ${JSON.stringify(licence)}`);
      continue;
    }
    const devOnly = exceptionFor(devOnlyExceptions, name, licence);
    if (set === 'production' && devOnlyExceptions.some((exception) => exception.names.includes(name))) {
      problems.push(`${name}@${entry.version} (${licence}) is allowed only as dev-only, but a production process can load it: ${pathTo(key)}`);
      continue;
    }
    if (isPermissive(licence)) continue;
    const listed = exceptionFor(productionExceptions, name, licence) ?? (set === 'dev-only' ? devOnly : undefined);
    if (listed) {
      used.add(listed);
      continue;
    }
    const what = licence === null ? 'declares no licence' : `is ${licence}, not a permissive licence`;
    problems.push(
      set === 'production'
        ? `${name}@${entry.version} ${what}, and a production process can load it: ${pathTo(key)}. Replace it, or list it in PRODUCTION_EXCEPTIONS (scripts/licences.mjs) with the reason`
        : `${name}@${entry.version} (dev-only, ${key}) ${what}; list it in DEV_ONLY_EXCEPTIONS (scripts/licences.mjs) with the reason`,
    );
  }
  for (const exception of [...productionExceptions, ...devOnlyExceptions]) {
    for (const name of exception.names) {
      if (!rows.some((row) => row.name === name && row.licence === exception.licence)) {
        problems.push(`the exception for ${name} (${exception.licence}) matches no package in package-lock.json: remove it`);
      }
    }
  }
  return { rows, problems, production };
}

function summary(rows) {
  const counts = (set) => {
    const byLicence = new Map();
    for (const row of rows.filter((r) => r.set === set)) byLicence.set(row.licence ?? '(none)', (byLicence.get(row.licence ?? '(none)') ?? 0) + 1);
    return [...byLicence].sort((a, b) => b[1] - a[1]).map(([licence, n]) => `${licence} ${n}`).join(', ');
  };
  const size = (set) => rows.filter((r) => r.set === set).length;
  return [`production: ${size('production')} packages (${counts('production')})`, `dev-only: ${size('dev-only')} packages (${counts('dev-only')})`];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  // --lock <file>: check another lock file (the test shows a failure that way); installed
  // package.json files are still read from this repository's node_modules.
  const lockAt = process.argv.indexOf('--lock');
  const lockFile = lockAt > 0 ? path.resolve(process.argv[lockAt + 1]) : path.join(repoRoot, 'package-lock.json');
  const lock = JSON.parse(readFileSync(lockFile, 'utf8'));
  const { rows, problems } = checkLicences(lock);
  if (process.argv.includes('--list')) {
    for (const row of rows.sort((a, b) => a.set.localeCompare(b.set) || a.key.localeCompare(b.key))) {
      console.log(`${row.set}\t${row.name}@${row.version}\t${row.licence ?? '(none)'}${row.markedDev && row.set === 'production' ? '\t(marked dev in the lock)' : ''}`);
    }
  }
  for (const line of summary(rows)) console.log(`licences: ${line}`);
  const markedDev = rows.filter((row) => row.set === 'production' && row.markedDev);
  if (markedDev.length > 0) console.log(`licences: ${markedDev.length} production packages are marked dev in the lock: ${markedDev.map((row) => row.name).join(', ')}`);
  for (const problem of problems) console.error(`licences: ${problem}`);
  process.exit(problems.length > 0 ? 1 : 0);
}
