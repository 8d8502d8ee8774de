'use client';

import { useState } from 'react';
import { AutoRetrySettingsPanel } from '@/components/auto-retry/auto-retry-settings';
import { EnvironmentPicker, type ConsoleEnvironment } from '@/components/environment-picker';
import { WithProject } from '@/components/project';
import { PageHeader } from '@/components/ui';

export default function AutoRetryPage() {
  const [environment, setEnvironment] = useState<ConsoleEnvironment>('development');
  return (
    <>
      <PageHeader
        title="Managed retry"
        subtitle="Whether this project's EVM transfers are re-signed with higher fees when the chain's fees pass them, and the fee ceiling they may reach."
        actions={<EnvironmentPicker value={environment} onChange={setEnvironment} />}
      />
      <WithProject>{(projectId) => <AutoRetrySettingsPanel key={`${projectId}:${environment}`} location={{ projectId, environment }} />}</WithProject>
    </>
  );
}
