'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { EnvironmentPicker } from '@/components/environment-picker';
import { WithProject } from '@/components/project';
import { ActivePolicies, type PolicyView } from '@/components/policies/policy-list';
import { PolicyDryRun } from '@/components/policies/policy-dry-run';
import { PolicyEditor } from '@/components/policies/policy-editor';
import { PolicyTemplates } from '@/components/policies/policy-templates';
import { PolicyVersions } from '@/components/policies/policy-versions';
import { PageHeader } from '@/components/ui';
import { useSession } from '@/lib/session';
import { useTRPC } from '@/lib/trpc';
import { usePolicyDraft, type PolicyLocation } from '@/lib/use-policy-draft';

const pretty = (document: unknown) => `${JSON.stringify(document, null, 2)}\n`;

function Policies({ location }: { location: PolicyLocation }) {
  const trpc = useTRPC();
  const { canWrite } = useSession();
  const { draft, setDraft } = usePolicyDraft(location);
  const [versionsOf, setVersionsOf] = useState<string | null>(null);
  const active = useQuery(trpc.policies.list.queryOptions(location));

  function edit(policy: PolicyView) {
    setDraft(pretty(policy.definition));
    document.getElementById('policy-draft')?.scrollIntoView({ behavior: 'smooth', block: 'start' });
  }

  return (
    <div className="space-y-6">
      <ActivePolicies location={location} onEdit={edit} onVersions={setVersionsOf} />
      {versionsOf ? <PolicyVersions key={versionsOf} location={location} policyId={versionsOf} onClose={() => setVersionsOf(null)} /> : null}
      {canWrite ? (
        <div id="policy-draft" className="space-y-6">
          <PolicyTemplates onDocument={(doc) => setDraft(pretty(doc))} />
          <PolicyEditor location={location} draft={draft} setDraft={setDraft} activePolicies={active.data?.policies ?? []} />
        </div>
      ) : null}
      {/* Every role: the dry run writes nothing. It judges the active policies, not the draft. */}
      <PolicyDryRun location={location} />
    </div>
  );
}

export default function PoliciesPage() {
  const [environment, setEnvironment] = useState<PolicyLocation['environment']>('development');
  return (
    <>
      <PageHeader
        title="Policies"
        subtitle="Guardrails checked before every signature of this project and environment. Drafts stay in your browser until activated."
        actions={
          <EnvironmentPicker value={environment} onChange={setEnvironment} />
        }
      />
      <WithProject>{(projectId) => <Policies key={`${projectId}:${environment}`} location={{ projectId, environment }} />}</WithProject>
    </>
  );
}
