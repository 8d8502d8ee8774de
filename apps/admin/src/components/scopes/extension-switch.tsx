'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Badge, Button, Card, ErrorBox, formatDate, Loading } from '@/components/ui';
import { useSession } from '@/lib/session';
import { useTRPC } from '@/lib/trpc';
import { actorLabel, type ScopeLocation } from './shared';

/**
 * The permissions v2 extension of the project and environment (conditional approvals,
 * user-adjustable limits): its state and who switched it when; owners switch it (audited).
 */
export function ExtensionSwitch({ location }: { location: ScopeLocation }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { staff } = useSession();
  const state = useQuery(trpc.scopes.extension.queryOptions(location));
  const change = useMutation(
    trpc.scopes.setExtension.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.scopes.extension.pathKey() }) }),
  );
  const isOwner = staff?.role === 'owner';
  return (
    <Card title="Permissions v2 extension">
      <section aria-label="Permissions v2 extension" className="space-y-3">
        {state.isPending ? (
          <Loading />
        ) : state.error ? (
          <ErrorBox error={state.error} />
        ) : (
          <div className="flex flex-wrap items-center justify-between gap-3">
            <div className="space-y-1">
              <p>
                <span data-testid="extension-state">
                  <Badge value={state.data.enabled ? 'enabled' : 'disabled'} />
                </span>{' '}
                <span className="text-slate-500">
                  {state.data.updatedAt ? `switched ${formatDate(state.data.updatedAt)} by ${actorLabel(state.data.updatedBy)}` : 'never switched (disabled by default)'}
                </span>
              </p>
              <p className="text-xs text-slate-500">
                Until enabled, scope assignments, wallet bindings and approval configuration writes answer 403 <code>PERMISSIONS_V2_EXTENSION_UNAVAILABLE</code>.
              </p>
            </div>
            {isOwner ? (
              <Button
                variant={state.data.enabled ? 'danger' : 'primary'}
                disabled={change.isPending}
                onClick={() => {
                  const enabled = !state.data.enabled;
                  if (window.confirm(`${enabled ? 'Enable' : 'Disable'} the permissions v2 extension for ${location.environment}?`)) change.mutate({ ...location, enabled });
                }}
              >
                {state.data.enabled ? 'Disable extension' : 'Enable extension'}
              </Button>
            ) : null}
          </div>
        )}
        {change.error ? <ErrorBox title="The extension was not switched" error={change.error} /> : null}
      </section>
    </Card>
  );
}
