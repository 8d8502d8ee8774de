// Generates the Prisma client when it is missing or older than the schema, and does nothing
// otherwise. Every npm entry point (start, test, the CLIs, benches) runs this first, so a fresh clone
// works after `npm install` alone and an unchanged schema costs no generation on start.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dbDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = path.resolve(dbDir, '../..');
const outputDir = path.join(dbDir, 'src/generated/prisma');
const markerFile = path.join(outputDir, '.source-hash');

export function clientSourceHash() {
  const hash = createHash('sha256');
  for (const file of ['prisma/schema.prisma', 'packages/db/prisma.config.ts', 'node_modules/prisma/package.json']) {
    hash.update(file).update('\0').update(readFileSync(path.join(repoRoot, file))).update('\0');
  }
  return hash.digest('hex');
}

export function ensurePrismaClient() {
  const wanted = clientSourceHash();
  if (existsSync(markerFile) && readFileSync(markerFile, 'utf8') === wanted) return false;
  const result = spawnSync(path.join(repoRoot, 'node_modules/.bin/prisma'), ['generate', '--no-hints'], {
    cwd: dbDir,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    env: { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: '/bin/false', PRISMA_HIDE_UPDATE_MESSAGE: '1' },
  });
  if (result.status !== 0) {
    throw new Error(`prisma generate failed (exit ${result.status ?? result.signal}):\n${result.stdout}${result.stderr}`);
  }
  writeFileSync(markerFile, wanted);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  try {
    if (ensurePrismaClient()) console.error('Prisma client generated');
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
