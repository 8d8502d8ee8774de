'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Empty, ErrorBox, Field, formatDate, Input, Loading, Mono, Select } from '@/components/ui';
import { useSession } from '@/lib/session';
import { useTRPC } from '@/lib/trpc';
import { actorLabel, isStaleRevision, type ScopeLocation } from './shared';

type Environment = ScopeLocation['environment'];

/**
 * A wallet's authorization scope binding per environment: the scope, its revision and who wrote it
 * when; owners and developers bind or unbind with the revision shown (a stale one shows the conflict
 * and reloads); every revision below.
 */
export function WalletScope({ walletId }: { walletId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { canWrite } = useSession();
  const [environment, setEnvironment] = useState<Environment>('development');
  const [scopeId, setScopeId] = useState('');
  const [conflict, setConflict] = useState(false);
  const at = { walletId, environment };
  const binding = useQuery(trpc.scopes.walletScope.queryOptions(at));
  const history = useQuery(trpc.scopes.walletScopeHistory.queryOptions({ ...at, limit: 50 }));
  const bind = useMutation(
    trpc.scopes.bindWallet.mutationOptions({
      onSuccess: () => {
        setConflict(false);
        setScopeId('');
        return queryClient.invalidateQueries({ queryKey: trpc.scopes.pathKey() });
      },
      onError: (error) => {
        if (isStaleRevision(error)) {
          setConflict(true);
          void queryClient.invalidateQueries({ queryKey: trpc.scopes.pathKey() });
        }
      },
    }),
  );
  const latest = history.data?.data[0];
  return (
    <div className="space-y-4">
      <label className="flex items-center gap-2">
        <span className="text-xs font-medium uppercase tracking-wide text-slate-500">Environment</span>
        <Select aria-label="Binding environment" value={environment} onChange={(e) => setEnvironment(e.target.value as Environment)}>
          <option value="development">development</option>
          <option value="production">production</option>
        </Select>
      </label>
      {binding.isPending ? (
        <Loading />
      ) : binding.error ? (
        <ErrorBox title="Binding not available" error={binding.error} />
      ) : (
        <div className="space-y-3">
          <p>
            {binding.data.authorizationScopeId ? (
              <>
                Bound to <Mono>{<span data-testid="binding-scope">{binding.data.authorizationScopeId}</span>}</Mono>
              </>
            ) : (
              <span data-testid="binding-scope" className="text-slate-500">
                not bound
              </span>
            )}{' '}
            <span className="text-slate-500">
              · revision <span data-testid="binding-revision">{binding.data.revision}</span>
              {binding.data.updatedAt ? ` · ${formatDate(binding.data.updatedAt)}` : ''}
              {latest && latest.revision === binding.data.revision ? ` by ${actorLabel(latest.createdBy)}` : ''}
            </span>
          </p>
          {canWrite ? (
            <form
              aria-label="Bind wallet"
              className="flex flex-wrap items-end gap-3"
              onSubmit={(e) => {
                e.preventDefault();
                if (scopeId.trim()) bind.mutate({ ...at, expectedRevision: binding.data.revision, authorizationScopeId: scopeId.trim() });
              }}
            >
              <div className="w-72">
                <Field label="Scope to bind">
                  <Input value={scopeId} onChange={(e) => setScopeId(e.target.value)} placeholder="acme:org-1" />
                </Field>
              </div>
              <Button type="submit" disabled={bind.isPending || !scopeId.trim()}>
                Bind
              </Button>
              {binding.data.authorizationScopeId ? (
                <Button
                  variant="danger"
                  disabled={bind.isPending}
                  onClick={() => {
                    if (window.confirm('Unbind this wallet? Requests that need an approval are refused (403 FORBIDDEN) until it is bound again.')) {
                      bind.mutate({ ...at, expectedRevision: binding.data.revision, authorizationScopeId: null });
                    }
                  }}
                >
                  Unbind
                </Button>
              ) : null}
            </form>
          ) : null}
          {conflict ? (
            <p role="alert" data-testid="binding-conflict" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900">
              Someone changed this binding first. The current one is shown now; make your change again.
            </p>
          ) : bind.error ? (
            <ErrorBox title="Not bound" error={bind.error} />
          ) : null}
        </div>
      )}
      <div className="space-y-2">
        <h3 className="text-sm font-semibold text-slate-700">Binding history</h3>
        {history.isPending ? (
          <Loading />
        ) : history.error ? (
          <ErrorBox error={history.error} />
        ) : history.data.data.length === 0 ? (
          <Empty title="Never bound in this environment" />
        ) : (
          <ol className="space-y-1" aria-label="Binding history">
            {history.data.data.map((h) => (
              <li key={h.revision} data-testid="binding-history-item" className="flex flex-wrap items-center gap-2">
                <span className="font-mono text-xs">r{h.revision}</span>
                {h.authorizationScopeId ? <Mono>{h.authorizationScopeId}</Mono> : <span className="text-slate-500">unbound</span>}
                <span className="text-xs text-slate-500">
                  {formatDate(h.createdAt)} by {actorLabel(h.createdBy)}
                </span>
              </li>
            ))}
          </ol>
        )}
      </div>
    </div>
  );
}
