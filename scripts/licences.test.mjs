// The dependency licence check (scripts/licences.mjs) on this repository's lock, and on fake lock
// entries that must fail it. Run by `npm test`'s static checks: `node --test scripts/licences.test.mjs`.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkLicences, DEV_ONLY_EXCEPTIONS, isPermissive, PRODUCTION_EXCEPTIONS, resolveFrom } from './licences.mjs';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const script = path.join(repoRoot, 'scripts/licences.mjs');
const realLock = () => JSON.parse(readFileSync(path.join(repoRoot, 'package-lock.json'), 'utf8'));

/** A lock of the three production apps (and their shared package) plus `extra` entries; nothing installed. */
function fakeLock({ apiDependencies = {}, extra = {}, ownLicence = 'Apache-2.0' } = {}) {
  const own = (name, more = {}) => ({ name, license: ownLicence, ...more });
  return {
    name: 'wallet-service',
    packages: {
      '': own('wallet-service', { devDependencies: { vitest: '1' } }),
      'apps/api': own('@wallet/api', { dependencies: { '@wallet/domain': '*', ...apiDependencies } }),
      'apps/signer': own('@wallet/signer'),
      'apps/admin': own('@wallet/admin'),
      'packages/domain': own('@wallet/domain', { dependencies: { zod: '4' } }),
      'node_modules/@wallet/domain': { resolved: 'packages/domain', link: true },
      'node_modules/zod': { version: '4.1.0', license: 'MIT' },
      'node_modules/vitest': { version: '3.2.7', license: 'MIT', dev: true },
      ...extra,
    },
  };
}
const check = (lock, options = {}) =>
  checkLicences(lock, { readPackageJson: () => undefined, productionExceptions: [], devOnlyExceptions: [], ...options });

describe('the licences of package-lock.json', () => {
  it('passes on this repository: the production set permissive or listed, the devnet copyleft dev-only', () => {
    const { rows, problems } = checkLicences(realLock());
    assert.deepEqual(problems, []);
    const setOf = (name) => rows.find((row) => row.name === name)?.set;
    for (const name of ['@wallet/api', '@wallet/signer', '@wallet/admin', '@wallet/domain', '@wallet/db', '@wallet/chains', '@wallet/frost-ed25519', 'express', 'next', 'sodium-native', '@img/sharp-libvips-linux-x64']) {
      assert.equal(setOf(name), 'production', name);
    }
    for (const name of ['@aave/core-v3', '@uniswap/v3-core', '@pimlico/alto', '@morpho-org/morpho-blue-bundlers', 'vitest', 'esbuild', 'prisma', '@playwright/test', 'tailwindcss', '@wallet/client', '@wallet/e2e']) {
      assert.equal(setOf(name), 'dev-only', name);
    }
    for (const row of rows.filter((r) => !r.key.includes('node_modules/'))) assert.equal(row.licence, 'Apache-2.0', row.key || 'package.json');
  });

  it('fails on a GPL package a production app depends on, naming it and the path to it', () => {
    const { problems } = check(fakeLock({ apiDependencies: { 'gpl-lib': '1' }, extra: { 'node_modules/gpl-lib': { version: '1.0.0', license: 'GPL-3.0-only' } } }));
    assert.equal(problems.length, 1);
    assert.match(problems[0], /^gpl-lib@1\.0\.0 is GPL-3\.0-only, not a permissive licence, and a production process can load it: apps\/api > node_modules\/gpl-lib/);
  });

  it('follows transitive, nested, workspace-linked, optional and required peer dependencies, not optional peers', () => {
    const lock = fakeLock({
      apiDependencies: { a: '1' },
      extra: {
        'node_modules/a': { version: '1.0.0', license: 'MIT', dependencies: { b: '2' }, optionalDependencies: { c: '1', absent: '1' }, peerDependencies: { d: '1', e: '1' }, peerDependenciesMeta: { e: { optional: true } } },
        'node_modules/a/node_modules/b': { version: '2.0.0', license: 'LGPL-2.1-only' },
        'node_modules/b': { version: '1.0.0', license: 'MIT' },
        'node_modules/c': { version: '1.0.0', license: 'AGPL-3.0-only', optional: true },
        'node_modules/d': { version: '1.0.0', license: 'SSPL-1.0' },
        'node_modules/e': { version: '1.0.0', license: 'GPL-2.0-only', dev: true },
      },
    });
    lock.packages['packages/domain'].dependencies.f = '1';
    lock.packages['node_modules/f'] = { version: '1.0.0', license: 'EUPL-1.2' };
    const { problems, rows } = check(lock);
    const failing = problems.map((problem) => problem.split(' ')[0]).sort();
    assert.deepEqual(failing, ['b@2.0.0', 'c@1.0.0', 'd@1.0.0', 'e@1.0.0', 'f@1.0.0']);
    assert.match(problems.find((p) => p.startsWith('e@')), /dev-only/);
    assert.equal(rows.find((row) => row.key === 'node_modules/b').set, 'dev-only');
  });

  it('fails on a production package with no licence, and reads an installed package.json when the lock has none', () => {
    const lock = fakeLock({ apiDependencies: { quiet: '1', legacy: '1' }, extra: { 'node_modules/quiet': { version: '1.0.0' }, 'node_modules/legacy': { version: '1.0.0' } } });
    const readPackageJson = (key) => (key === 'node_modules/legacy' ? { licenses: [{ type: 'MIT' }] } : key === 'node_modules/quiet' ? {} : undefined);
    const { problems } = check(lock, { readPackageJson });
    assert.equal(problems.length, 1);
    assert.match(problems[0], /^quiet@1\.0\.0 declares no licence, and a production process can load it/);
  });

  it('allows a listed exception only with the licence it lists', () => {
    const extra = { 'node_modules/libvips': { version: '1.0.0', license: 'LGPL-3.0-or-later' } };
    const listed = [{ names: ['libvips'], licence: 'LGPL-3.0-or-later', reason: 'a test' }];
    assert.deepEqual(check(fakeLock({ apiDependencies: { libvips: '1' }, extra }), { productionExceptions: listed }).problems, []);
    const changed = { 'node_modules/libvips': { version: '2.0.0', license: 'GPL-3.0-only' } };
    const { problems } = check(fakeLock({ apiDependencies: { libvips: '1' }, extra: changed }), { productionExceptions: listed });
    assert.ok(problems.some((p) => p.startsWith('libvips@2.0.0 is GPL-3.0-only')), problems.join('\n'));
    assert.ok(problems.some((p) => p.includes('matches no package')), problems.join('\n'));
  });

  it('allows the devnet copyleft only as dev-only: in the production set it fails', () => {
    const alto = { version: '1.0.0', license: 'GPL-3.0-or-later', dev: true };
    const devOnlyExceptions = [{ names: ['@pimlico/alto'], licence: 'GPL-3.0-or-later', reason: 'a test' }];
    assert.deepEqual(check(fakeLock({ extra: { 'node_modules/@pimlico/alto': alto } }), { devOnlyExceptions }).problems, []);
    assert.match(check(fakeLock({ extra: { 'node_modules/@pimlico/alto': alto } })).problems[0], /^@pimlico\/alto@1\.0\.0 \(dev-only, node_modules\/@pimlico\/alto\) is GPL-3\.0-or-later/);
    const { problems } = check(fakeLock({ apiDependencies: { '@pimlico/alto': '1' }, extra: { 'node_modules/@pimlico/alto': alto } }), { devOnlyExceptions });
    assert.deepEqual(problems, ['@pimlico/alto@1.0.0 (GPL-3.0-or-later) is allowed only as dev-only, but a production process can load it: apps/api > node_modules/@pimlico/alto']);
  });

  it('fails when one of our own package.json files declares another licence', () => {
    const { problems } = check(fakeLock({ ownLicence: 'MIT' }));
    assert.ok(problems.length >= 5);
    assert.match(problems.find((p) => p.startsWith('apps/api')), /must declare "license": "Apache-2\.0", not "MIT"/);
  });

  it('lists every exception by name with its licence and reason', () => {
    for (const exception of [...PRODUCTION_EXCEPTIONS, ...DEV_ONLY_EXCEPTIONS]) {
      assert.ok(exception.names.length > 0 && exception.names.every((name) => typeof name === 'string' && !name.includes('*')));
      assert.ok(exception.reason.length > 40, exception.names[0]);
      assert.ok(!isPermissive(exception.licence), `${exception.names[0]} is permissive: no exception needed`);
    }
  });

  it('exits 1 from the command line on a lock whose production set has a GPL package', () => {
    const lock = realLock();
    lock.packages['apps/api'].dependencies['copyleft-helper'] = '1.0.0';
    lock.packages['node_modules/copyleft-helper'] = { version: '1.0.0', license: 'GPL-2.0-only' };
    const dir = mkdtempSync(path.join(tmpdir(), 'licences-'));
    try {
      writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify(lock));
      const failed = spawnSync(process.execPath, [script, '--lock', path.join(dir, 'package-lock.json')], { encoding: 'utf8' });
      assert.equal(failed.status, 1, failed.stdout + failed.stderr);
      assert.match(failed.stderr, /licences: copyleft-helper@1\.0\.0 is GPL-2\.0-only, not a permissive licence, and a production process can load it: apps\/api > node_modules\/copyleft-helper/);
      const passed = spawnSync(process.execPath, [script], { encoding: 'utf8' });
      assert.equal(passed.status, 0, passed.stdout + passed.stderr);
      assert.match(passed.stdout, /licences: production: \d+ packages/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SPDX expressions', () => {
  it('needs every AND term and one OR branch permissive', () => {
    for (const yes of ['MIT', '(MIT OR Apache-2.0)', 'Apache-2.0 AND MIT', '(MPL-2.0 OR Apache-2.0)', 'MIT and ISC', 'Apache-2.0 WITH LLVM-exception', 'GPL-3.0-only OR (MIT AND BSD-3-Clause)']) {
      assert.equal(isPermissive(yes), true, yes);
    }
    for (const no of ['GPL-3.0-or-later', 'Apache-2.0 AND LGPL-3.0-or-later', 'BUSL-1.1', 'MPL-2.0', 'BSD', 'UNLICENSED', 'SEE LICENSE IN LICENSE', '', null, 'MIT AND', '(MIT']) {
      assert.equal(isPermissive(no), false, String(no));
    }
  });

  it('resolves a name the way Node does, nearest node_modules first', () => {
    const packages = { 'node_modules/a': {}, 'node_modules/a/node_modules/b': {}, 'node_modules/b': {}, 'apps/api/node_modules/b': {} };
    assert.equal(resolveFrom(packages, 'node_modules/a', 'b'), 'node_modules/a/node_modules/b');
    assert.equal(resolveFrom(packages, 'node_modules/a/node_modules/b', 'a'), 'node_modules/a');
    assert.equal(resolveFrom(packages, 'apps/api', 'b'), 'apps/api/node_modules/b');
    assert.equal(resolveFrom(packages, 'apps/signer', 'b'), 'node_modules/b');
    assert.equal(resolveFrom(packages, 'apps/signer', 'c'), undefined);
  });
});

describe('the project licence', () => {
  it('is the Apache-2.0 text in LICENSE, and the OpenAPI document says so', () => {
    const licence = readFileSync(path.join(repoRoot, 'LICENSE'), 'utf8');
    assert.match(licence, /^\s*Apache License\s+Version 2\.0, January 2004\s+http:\/\/www\.apache\.org\/licenses\//);
    assert.match(licence, /END OF TERMS AND CONDITIONS/);
    const openapi = readFileSync(path.join(repoRoot, 'apps/api/src/http/openapi.ts'), 'utf8');
    assert.match(openapi, /license: \{ name: 'Apache-2\.0', identifier: 'Apache-2\.0' \}/);
  });
});
