import type { WorkerLeaseStore } from '@wallet/domain';
import type { PrismaClient } from '../generated/prisma/client.ts';

export function createWorkerLeaseStore(prisma: PrismaClient): WorkerLeaseStore {
  return {
    async acquire(name, owner, now, until) {
      const taken = await prisma.$executeRaw`
        INSERT INTO worker_leases AS l (name, owner, lease_until) VALUES (${name}, ${owner}, ${until})
        ON CONFLICT (name) DO UPDATE SET owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until
        WHERE l.owner = EXCLUDED.owner OR l.lease_until <= ${now}`;
      return taken === 1;
    },
    async release(name, owner) {
      await prisma.workerLease.deleteMany({ where: { name, owner } });
    },
  };
}
