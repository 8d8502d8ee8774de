'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Card, DefinitionList, ErrorBox, Field, formatDate, Input, Loading, Mono } from '@/components/ui';
import { formatGwei, typedCeiling } from '@/lib/auto-retry';
import { changedBy } from '@/lib/sponsorship';
import { useSession } from '@/lib/session';
import { apiFailure, useTRPC, type RouterOutputs } from '@/lib/trpc';

type Location = { projectId: string; environment: 'development' | 'production' };
type View = RouterOutputs['autoRetry']['get'];

/**
 * The project's default of managed automatic retry for its EVM transfers: on or off, and the fee
 * ceiling of transfers that name none. Owners change it (audited); everyone else reads.
 */
export function AutoRetrySettingsPanel({ location }: { location: Location }) {
  const trpc = useTRPC();
  const { staff } = useSession();
  const view = useQuery(trpc.autoRetry.get.queryOptions(location));
  if (view.isPending) return <Loading />;
  if (view.error) return <ErrorBox title="Managed retry settings not available" error={view.error} />;
  const data = view.data;
  return (
    <Card title="Managed automatic retry">
      <section aria-label="Managed retry default" className="space-y-4">
        <DefinitionList
          items={[
            ['Default', <span key="on" data-testid="auto-retry-state">{data.enabled ? 'on' : 'off'}</span>],
            [
              'Default fee ceiling',
              <span key="c" data-testid="auto-retry-ceiling">
                {data.maxFeePerGas ? (
                  <>
                    {formatGwei(data.maxFeePerGas)} <Mono>{data.maxFeePerGas} wei</Mono>
                  </>
                ) : (
                  "built in: 10 × the first attempt's max fee per gas"
                )}
              </span>,
            ],
            ['Last change', <span key="l" data-testid="auto-retry-last-change">{data.updatedAt ? `${formatDate(data.updatedAt)} by ${changedBy(data)}` : 'never changed (on by default)'}</span>],
          ]}
        />
        <p className="text-xs text-slate-500">
          A type 2 EVM transfer left under the base fee is re-signed with higher fees (same nonce, call and value) up to the ceiling. A transfer&apos;s own{' '}
          <code>autoRetry</code> wins over this default; a transfer that pins its nonce or fees is never retried.
        </p>
        {staff?.role === 'owner' ? (
          <SettingsForm key={`${data.enabled}:${data.maxFeePerGas}`} location={location} view={data} />
        ) : (
          <p data-testid="auto-retry-read-only" className="text-xs text-slate-500">
            Read only: owners change managed retry.
          </p>
        )}
      </section>
    </Card>
  );
}

function SettingsForm({ location, view }: { location: Location; view: View }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [enabled, setEnabled] = useState(view.enabled);
  const [ceiling, setCeiling] = useState(view.maxFeePerGas ?? '');
  const change = useMutation(trpc.autoRetry.change.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.autoRetry.get.queryKey(location) }) }));
  const ceilingError = change.error ? apiFailure(change.error).details?.find((d) => d.path === 'maxFeePerGas')?.message : undefined;
  const typed = typedCeiling(ceiling);
  return (
    <form
      aria-label="Change managed retry"
      className="space-y-3 border-t border-slate-100 pt-4"
      onSubmit={(e) => {
        e.preventDefault();
        change.mutate({ ...location, enabled, maxFeePerGas: typed });
      }}
    >
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Retry transfers automatically
      </label>
      <Field
        label="Default fee ceiling (wei per gas)"
        hint={typed && /^\d+$/.test(typed) ? `= ${formatGwei(typed)}` : 'Empty: 10 × the first attempt\'s max fee per gas'}
        error={ceilingError}
      >
        <Input inputMode="numeric" value={ceiling} onChange={(e) => setCeiling(e.target.value)} />
      </Field>
      <Button type="submit" disabled={change.isPending || (enabled === view.enabled && typed === view.maxFeePerGas)}>
        Save
      </Button>
      {change.error ? <ErrorBox title="Managed retry was not changed" error={change.error} /> : null}
    </form>
  );
}
