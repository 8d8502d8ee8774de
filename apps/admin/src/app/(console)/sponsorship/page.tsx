'use client';

import { useState } from 'react';
import { EnvironmentPicker, type ConsoleEnvironment } from '@/components/environment-picker';
import { WithProject } from '@/components/project';
import { SponsorshipPanel } from '@/components/sponsorship/sponsorship-panel';
import { PageHeader } from '@/components/ui';

export default function SponsorshipPage() {
  const [environment, setEnvironment] = useState<ConsoleEnvironment>('development');
  return (
    <>
      <PageHeader
        title="Sponsorship"
        subtitle="Gasless ERC-20 transfers of this project and environment: whether the service pays their gas, the limits on what it pays, and today's budget."
        actions={<EnvironmentPicker value={environment} onChange={setEnvironment} />}
      />
      <WithProject>{(projectId) => <SponsorshipPanel key={`${projectId}:${environment}`} location={{ projectId, environment }} />}</WithProject>
    </>
  );
}
