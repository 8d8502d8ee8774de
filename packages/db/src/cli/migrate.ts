// npm run db:migrate | db:check | db:migration -- NAME
//   deploy        apply pending migrations (DATABASE_URL, else PGlite in DATA_DIR or <repo>/.data/db)
//   check         fail when prisma/migrations does not produce prisma/schema.prisma
//   create NAME   write the next migration from the schema change
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_OPTIONS } from '../pglite-settings.ts';
import { deploy } from '../migrate/deploy.ts';
import { check, create } from '../migrate/diff.ts';
import { repoRoot } from '../migrate/files.ts';

const usage = 'usage: migrate.ts deploy | check | create NAME';

async function runDeploy(): Promise<number> {
  const databaseUrl = process.env.DATABASE_URL;
  let where: string;
  let result;
  if (databaseUrl) {
    const u = new URL(databaseUrl);
    where = `postgres ${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname}`;
    result = await deploy({ databaseUrl });
  } else {
    // Same layout as apps/api: <DATA_DIR or .data>/db, relative to the repository root.
    const dir = path.join(path.resolve(repoRoot, process.env.DATA_DIR ?? '.data'), 'db');
    where = `pglite ${dir}`;
    mkdirSync(dir, { recursive: true });
    const db = new PGlite(dir, PGLITE_OPTIONS);
    try {
      result = await deploy(db);
    } finally {
      await db.close();
    }
  }
  for (const name of result.unknownApplied) {
    console.warn(`warning: ${name} is applied in the database but missing from prisma/migrations`);
  }
  console.log(
    result.applied.length
      ? `migrate deploy (${where}): applied ${result.applied.length}: ${result.applied.join(', ')}`
      : `migrate deploy (${where}): up to date`,
  );
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'deploy':
      return runDeploy();
    case 'check': {
      const started = Date.now();
      const result = await check();
      if (result.inSync) {
        console.log(`migrate check: prisma/migrations and schema.prisma are in sync (${Date.now() - started} ms)`);
        return 0;
      }
      console.error('migrate check: schema.prisma has changes that no migration covers; missing SQL:\n');
      console.error(result.missingSql);
      console.error('Run `npm run db:migration -- NAME` to write the migration.');
      return 1;
    }
    case 'create': {
      const name = rest[0];
      if (!name || rest.length > 1) {
        console.error(usage);
        return 2;
      }
      const result = await create(name);
      console.log(`migrate create: wrote ${path.relative(process.cwd(), result.file)}`);
      return 0;
    }
    default:
      console.error(usage);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code === 2 ? 1 : code;
  },
  (e: unknown) => {
    console.error(`migrate ${process.argv[2] ?? ''}: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  },
);
