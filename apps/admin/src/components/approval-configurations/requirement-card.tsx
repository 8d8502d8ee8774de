'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { actorLabel } from '@/components/scopes/shared';
import { Card, Empty, ErrorBox, formatDate, Loading, Mono, Table, Td } from '@/components/ui';
import { useSession } from '@/lib/session';
import { eligibilityLabel } from '@/lib/approval-cases';
import { useTRPC } from '@/lib/trpc';
import { ConfigurationEditor } from './configuration-editor';
import type { Requirement, RequirementAt } from './shared';

const valuesLabel = (values: Record<string, number>) =>
  Object.keys(values).length === 0
    ? 'defaults'
    : Object.entries(values)
        .map(([key, value]) => `${key} = ${value}`)
        .join(', ');

/**
 * One requirement of an active policy in a scope: its stages with the policy's default, the bounds
 * and the value in force, the editor for owners and developers, and the configuration's revisions.
 */
export function RequirementCard({ at, requirement }: { at: Omit<RequirementAt, 'policyId' | 'policyVersion' | 'requirementId'>; requirement: Requirement }) {
  const trpc = useTRPC();
  const { canWrite } = useSession();
  const here: RequirementAt = { ...at, policyId: requirement.policyId, policyVersion: requirement.policyVersion, requirementId: requirement.requirementId };
  const effective = useQuery(trpc.approvalConfigurations.effective.queryOptions(here));
  const [conflict, setConflict] = useState(false);
  return (
    <Card
      title={
        <>
          <Mono>{requirement.requirementId}</Mono> <span className="text-sm font-normal text-slate-500">policy {requirement.policyId} v{requirement.policyVersion}, rule {requirement.ruleId}</span>
        </>
      }
    >
      <section aria-label={`Requirement ${requirement.requirementId}`} className="space-y-4">
        {effective.isPending ? (
          <Loading />
        ) : effective.error ? (
          <ErrorBox title="Requirement not available" error={effective.error} />
        ) : (
          <>
            <Table head={['Stage', 'Eligible', 'Default approvals', 'Bounds', 'In force']}>
              {requirement.stages.map((stage) => {
                const configurable = requirement.configurable.find((c) => c.key === `${stage.id}.requiredApprovals`);
                const inForce = effective.data.stages.find((s) => s.id === stage.id)?.requiredApprovals ?? stage.requiredApprovals;
                return (
                  <tr key={stage.id} data-testid={`stage-${stage.id}`}>
                    <Td>
                      <Mono>{stage.id}</Mono>
                    </Td>
                    <Td>{eligibilityLabel(stage.eligibility)}</Td>
                    <Td>{configurable?.default ?? stage.requiredApprovals}</Td>
                    <Td>{configurable ? `${configurable.min}..${configurable.max}` : 'fixed'}</Td>
                    <Td className={inForce !== stage.requiredApprovals ? 'font-semibold text-indigo-700' : undefined}>{inForce}</Td>
                  </tr>
                );
              })}
            </Table>
            <p className="text-xs text-slate-500">
              {effective.data.configuration
                ? `Configured: ${valuesLabel(effective.data.configuration.values)} (revision ${effective.data.configuration.revision}, ${formatDate(effective.data.configuration.updatedAt)} by ${actorLabel(effective.data.configuration.updatedBy)})`
                : 'Never configured in this scope: the policy defaults apply.'}
            </p>
            {conflict ? (
              <p role="alert" data-testid="configuration-conflict" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900">
                Someone saved another revision of this configuration first. The current one is shown now; make your change again.
              </p>
            ) : null}
            {canWrite && requirement.configurable.length > 0 ? (
              <ConfigurationEditor key={effective.data.configuration?.revision ?? 0} at={here} effective={effective.data} onConflict={setConflict} />
            ) : null}
            {requirement.configurable.length === 0 ? <p className="text-xs text-slate-500">The policy declares nothing configurable for this requirement.</p> : null}
          </>
        )}
        <ConfigurationHistory at={here} />
      </section>
    </Card>
  );
}

function ConfigurationHistory({ at }: { at: RequirementAt }) {
  const trpc = useTRPC();
  const history = useQuery(trpc.approvalConfigurations.history.queryOptions({ ...at, limit: 50 }));
  return (
    <div className="space-y-2">
      <h3 className="text-sm font-semibold text-slate-700">Configuration history</h3>
      {history.isPending ? (
        <Loading />
      ) : history.error ? (
        <ErrorBox error={history.error} />
      ) : history.data.data.length === 0 ? (
        <Empty title="Never configured in this scope" />
      ) : (
        <ol className="space-y-1" aria-label="Configuration history">
          {history.data.data.map((h) => (
            <li key={h.revision} data-testid="configuration-history-item" className="flex flex-wrap items-center gap-2">
              <span className="font-mono text-xs">r{h.revision}</span>
              <span>{valuesLabel(h.values)}</span>
              <span className="text-xs text-slate-500">
                {formatDate(h.createdAt)} by {actorLabel(h.createdBy)}
              </span>
            </li>
          ))}
        </ol>
      )}
      {history.data?.pagination.hasMore ? <p className="text-xs text-slate-500">Older revisions: GET …/configuration/history with the cursor.</p> : null}
    </div>
  );
}
