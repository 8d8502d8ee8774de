'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Button, Card, ErrorBox, Field, Input, Loading, Select, short } from '@/components/ui';
import { dryRunRoutes, exampleBody, type DryRunRoute } from '@/lib/dry-run-examples';
import { parseDraft } from '@/lib/policy-draft';
import { useTRPC } from '@/lib/trpc';
import type { PolicyLocation } from '@/lib/use-policy-draft';
import { DryRunResult } from './dry-run-result';

/**
 * The dry run (`policies.dryRun`, the console side of POST /v1/permissions-v2/evaluate): a body of
 * a signing or transfer route, judged by the ACTIVE policies as the chosen API key would send it.
 * Nothing is reserved, signed or recorded, so every role may run it.
 */
export function PolicyDryRun({ location }: { location: PolicyLocation }) {
  const trpc = useTRPC();
  const keys = useQuery(trpc.policies.dryRunKeys.queryOptions(location));
  const [apiKeyId, setApiKeyId] = useState('');
  const [walletId, setWalletId] = useState('');
  const [route, setRoute] = useState<DryRunRoute>('transfer');
  const [body, setBody] = useState(() => exampleBody('transfer'));
  const [bodyError, setBodyError] = useState<string | undefined>();
  const dryRun = useMutation(trpc.policies.dryRun.mutationOptions());

  const chosenKey = apiKeyId || keys.data?.[0]?.apiKeyId || '';

  function changeRoute(next: DryRunRoute) {
    setRoute(next);
    setBody(exampleBody(next));
    setBodyError(undefined);
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = parseDraft(body);
    if (!parsed.ok || parsed.value === null || typeof parsed.value !== 'object' || Array.isArray(parsed.value)) {
      setBodyError(parsed.ok ? 'The body must be a JSON object' : `JSON syntax: ${parsed.message}`);
      return;
    }
    setBodyError(undefined);
    dryRun.mutate({ ...location, apiKeyId: chosenKey, walletId: walletId.trim(), route, body: parsed.value as Record<string, unknown> });
  }

  return (
    <Card title="Dry run">
      <div className="space-y-3">
        <p className="text-xs text-slate-500">
          What a request would get from the active policies of this project and environment, as the chosen API key would send it (spend meters and
          apiKeyId selectors are per key). Nothing is reserved, signed or recorded. Activate a draft first to see its effect here.
        </p>
        {keys.isPending ? (
          <Loading label="Loading API keys…" />
        ) : keys.error ? (
          <ErrorBox error={keys.error} />
        ) : keys.data.length === 0 ? (
          <p className="text-slate-600">No API key of this project and environment: create one to dry-run requests as it.</p>
        ) : (
          <form onSubmit={submit} noValidate aria-label="Dry run" className="space-y-3">
            <div className="grid grid-cols-1 gap-3 md:grid-cols-3">
              <Field label="API key">
                <Select value={chosenKey} onChange={(e) => setApiKeyId(e.target.value)}>
                  {keys.data.map((key) => (
                    <option key={key.apiKeyId} value={key.apiKeyId}>
                      {key.keyPrefix} ({key.plan}, {short(key.apiKeyId, 8, 4)})
                    </option>
                  ))}
                </Select>
              </Field>
              <Field label="Wallet id">
                <Input value={walletId} onChange={(e) => setWalletId(e.target.value)} placeholder="uuid of a wallet of this project" />
              </Field>
              <Field label="Route">
                <Select value={route} onChange={(e) => changeRoute(e.target.value as DryRunRoute)}>
                  {dryRunRoutes.map((r) => (
                    <option key={r} value={r}>
                      {r}
                    </option>
                  ))}
                </Select>
              </Field>
            </div>
            <Field label="Request body (JSON, as the route takes it)" error={bodyError}>
              <textarea
                value={body}
                onChange={(e) => setBody(e.target.value)}
                spellCheck={false}
                rows={8}
                className="w-full rounded-md border border-slate-300 bg-slate-50 p-3 font-mono text-xs leading-5 focus:border-indigo-500 focus:outline-none"
              />
            </Field>
            <Button type="submit" disabled={dryRun.isPending || walletId.trim() === ''}>
              {dryRun.isPending ? 'Running…' : 'Dry run'}
            </Button>
          </form>
        )}
        {dryRun.error ? <ErrorBox title="Dry run failed" error={dryRun.error} /> : null}
        {dryRun.data && !dryRun.isPending ? <DryRunResult result={dryRun.data} /> : null}
      </div>
    </Card>
  );
}
