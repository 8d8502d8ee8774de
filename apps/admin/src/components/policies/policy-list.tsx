'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Card, Empty, ErrorBox, formatDate, Loading, Mono, Table, Td } from '@/components/ui';
import { useSession } from '@/lib/session';
import { useTRPC, type RouterOutputs } from '@/lib/trpc';
import type { PolicyLocation } from '@/lib/use-policy-draft';

export type PolicyView = RouterOutputs['policies']['list']['policies'][number];

const actorLabel = (actor: PolicyView['createdBy'] | null) => (actor ? `${actor.type}${actor.id ? ` ${actor.id.slice(0, 8)}…` : ''}` : '—');

/** The active policies of the project and environment; owners and developers also edit and deactivate. */
export function ActivePolicies({
  location,
  onEdit,
  onVersions,
}: {
  location: PolicyLocation;
  onEdit: (policy: PolicyView) => void;
  onVersions: (policyId: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { canWrite } = useSession();
  const list = useQuery(trpc.policies.list.queryOptions(location));
  const deactivate = useMutation(
    trpc.policies.deactivate.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.policies.pathKey() }),
    }),
  );
  return (
    <Card title="Active policies">
      <div className="space-y-3">
        {deactivate.error ? <ErrorBox title="Not deactivated" error={deactivate.error} /> : null}
        {deactivate.isSuccess ? (
          <p role="status" className="text-emerald-700">
            Deactivated {deactivate.data.policyId} version {deactivate.data.version}.
          </p>
        ) : null}
        {list.isPending ? (
          <Loading />
        ) : list.error ? (
          <ErrorBox error={list.error} />
        ) : list.data.policies.length === 0 ? (
          <Empty title="No active policy">While no policy is active, every request of this environment is allowed (raw signatures too).</Empty>
        ) : (
          <Table head={['Policy', 'Version', 'Wallet type', 'Networks', 'Rules', 'Effective', 'Created', '']} stickyLast>
            {list.data.policies.map((policy) => (
              <tr key={policy.policyId} data-testid="policy-row" data-policy-id={policy.policyId} data-version={policy.version}>
                <Td>
                  <Mono>{policy.policyId}</Mono>
                  {policy.definition.metadata.description ? (
                    <span className="ml-2 inline-block max-w-[14rem] truncate align-middle text-xs text-slate-500" title={policy.definition.metadata.description}>
                      {policy.definition.metadata.description}
                    </span>
                  ) : null}
                </Td>
                <Td>
                  <span data-testid="policy-version">v{policy.version}</span> <Badge value={policy.status} />
                </Td>
                <Td>{policy.walletType}</Td>
                <Td>{policy.definition.selector.chainId?.join(', ') ?? 'every network'}</Td>
                <Td>{policy.definition.rules.length}</Td>
                <Td className="text-xs">
                  {policy.effectiveFrom || policy.effectiveUntil ? `${formatDate(policy.effectiveFrom)} → ${formatDate(policy.effectiveUntil)}` : 'always'}
                </Td>
                <Td className="text-xs">
                  {formatDate(policy.createdAt)} <span className="text-slate-500">{actorLabel(policy.createdBy)}</span>
                </Td>
                <Td sticky>
                  <div className="flex gap-1">
                    <Button variant="secondary" onClick={() => onVersions(policy.policyId)}>
                      Versions
                    </Button>
                    {canWrite ? (
                      <>
                        <Button variant="secondary" onClick={() => onEdit(policy)}>
                          Edit
                        </Button>
                        <Button
                          variant="danger"
                          disabled={deactivate.isPending}
                          onClick={() => {
                            if (window.confirm(`Deactivate ${policy.policyId} (version ${policy.version})? Requests stop being checked against it at once; its versions are kept.`)) {
                              deactivate.mutate({ ...location, policyId: policy.policyId });
                            }
                          }}
                        >
                          Deactivate
                        </Button>
                      </>
                    ) : null}
                  </div>
                </Td>
              </tr>
            ))}
          </Table>
        )}
      </div>
    </Card>
  );
}
