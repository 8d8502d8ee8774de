'use client';

import { WithProject } from '@/components/project';
import { Card, PageHeader } from '@/components/ui';
import { YieldOperationList } from '@/components/yield';

export default function YieldOperationsPage() {
  return (
    <>
      <PageHeader title="Yield operations" subtitle="Deposits and withdrawals of the current project, newest first, with their signed steps; the list refreshes every few seconds." />
      <WithProject>
        {(projectId) => (
          <Card title="Operations">
            <YieldOperationList projectId={projectId} />
          </Card>
        )}
      </WithProject>
    </>
  );
}
