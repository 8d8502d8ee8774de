import type { WorkerLeaseStore } from '@wallet/domain';
import type { Database } from '../database.ts';

// On the driver, like every statement the idle workers run: a Prisma query would load Prisma's query
// compiler (WebAssembly, ~45 MB resident) into a process at rest.
export function createWorkerLeaseStore({ query }: Database): WorkerLeaseStore {
  return {
    async acquire(name, owner, now, until) {
      const taken = await query(
        `INSERT INTO worker_leases AS l (name, owner, lease_until) VALUES ($1, $2, $3)
         ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until
         WHERE l.owner = EXCLUDED.owner OR l.lease_until <= $4
         RETURNING 1`,
        [name, owner, until, now],
      );
      return taken.length === 1;
    },
    async release(name, owner) {
      await query('DELETE FROM worker_leases WHERE name = $1 AND owner = $2', [name, owner]);
    },
  };
}
