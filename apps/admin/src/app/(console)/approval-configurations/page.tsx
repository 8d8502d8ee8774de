'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { EnvironmentPicker } from '@/components/environment-picker';
import { RequirementCard } from '@/components/approval-configurations/requirement-card';
import { WithProject } from '@/components/project';
import { ScopePicker } from '@/components/scopes/scope-picker';
import type { ScopeLocation } from '@/components/scopes/shared';
import { Card, Empty, ErrorBox, Loading, Mono, PageHeader } from '@/components/ui';
import { distinctRequirements } from '@/lib/approval-configurations';
import { useTRPC } from '@/lib/trpc';

function Requirements({ location, scopeId }: { location: ScopeLocation; scopeId: string }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.approvalConfigurations.requirements.queryOptions({ ...location, scopeId }));
  if (list.isPending) return <Loading />;
  if (list.error) return <ErrorBox title="Requirements not available" error={list.error} />;
  const requirements = distinctRequirements(list.data.requirements);
  if (requirements.length === 0) return <Empty title="No approval requirements">No active policy of this environment has a require_approval rule.</Empty>;
  return (
    <div className="space-y-6">
      {requirements.map((r) => (
        <RequirementCard key={`${r.policyId}:${r.policyVersion}:${r.requirementId}`} at={{ ...location, scopeId }} requirement={r} />
      ))}
    </div>
  );
}

function ApprovalConfigurations({ location }: { location: ScopeLocation }) {
  const [scopeId, setScopeId] = useState<string | null>(null);
  return (
    <div className="space-y-6">
      <Card title="Scope">
        <div className="space-y-3">
          <ScopePicker location={location} scopeId={scopeId} onOpen={setScopeId} />
          <p className="text-xs text-slate-500">
            Each scope may choose its own number of approvals per stage, within the bounds the policy declares; saving needs the permissions v2 extension of this
            environment (see Authorization scopes).
          </p>
        </div>
      </Card>
      {scopeId ? (
        <section aria-label="Approval requirements" className="space-y-3">
          <h2 className="font-semibold text-slate-800">
            Approval requirements in <Mono>{scopeId}</Mono>
          </h2>
          <Requirements key={scopeId} location={location} scopeId={scopeId} />
        </section>
      ) : null}
    </div>
  );
}

export default function ApprovalConfigurationsPage() {
  const [environment, setEnvironment] = useState<ScopeLocation['environment']>('development');
  return (
    <>
      <PageHeader
        title="Approval configurations"
        subtitle="The approval requirements of the active policies, and per scope the number of approvals each stage needs."
        actions={
          <EnvironmentPicker value={environment} onChange={setEnvironment} />
        }
      />
      <WithProject>{(projectId) => <ApprovalConfigurations key={`${projectId}:${environment}`} location={{ projectId, environment }} />}</WithProject>
    </>
  );
}
