'use client';

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, useState, type FormEvent } from 'react';
import { ProjectFromLink, WithProject } from '@/components/project';
import { Badge, Button, Card, DefinitionList, Empty, ErrorBox, Field, formatDate, Input, Loading, LoadMore, Mono, PageHeader, SecretOnce, Select, Table, Td } from '@/components/ui';
import { CopyableValue } from '@/components/values';
import { fieldErrors } from '@/lib/forms';
import { WEBHOOK_EVENT_TYPES, webhookSetInput } from '@/lib/schemas';
import { useSession } from '@/lib/session';
import { useTRPC, type RouterOutputs } from '@/lib/trpc';

type Config = NonNullable<RouterOutputs['webhooks']['get']>;

function EndpointForm({ apiKeyId, config, onSecret }: { apiKeyId: string; config: Config | null; onSecret: (s: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { canWrite } = useSession();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState(false);
  const set = useMutation(
    trpc.webhooks.set.mutationOptions({
      onSuccess: async (result) => {
        if (result.secret) onSecret(result.secret);
        setSaved(true);
        await queryClient.invalidateQueries({ queryKey: trpc.webhooks.get.queryKey({ apiKeyId }) });
      },
    }),
  );
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const parsed = webhookSetInput.safeParse({
      apiKeyId,
      url: String(form.get('url') ?? ''),
      eventTypes: form.getAll('eventTypes').map(String),
      enabled: form.get('enabled') === 'on',
    });
    if (!parsed.success) return setErrors(fieldErrors(parsed.error));
    setErrors({});
    setSaved(false);
    set.mutate(parsed.data);
  }
  const subscribed = new Set(config?.eventTypes ?? ['rest.transaction.confirmed', 'rest.transaction.failed', 'test.ping']);
  return (
    <form onSubmit={submit} noValidate aria-label="Webhook endpoint" className="space-y-4">
      <fieldset disabled={!canWrite} className="space-y-4">
        <Field label="Endpoint URL (HTTPS)" error={errors.url}>
          <Input name="url" defaultValue={config?.url ?? ''} placeholder="https://example.com/hooks" />
        </Field>
        <fieldset>
          <legend className="mb-1 text-xs font-medium text-slate-600">Event types</legend>
          <div className="grid grid-cols-1 gap-1 sm:grid-cols-2 lg:grid-cols-3">
            {WEBHOOK_EVENT_TYPES.map((type) => (
              <label key={type} className="flex items-center gap-2">
                <input type="checkbox" name="eventTypes" value={type} defaultChecked={subscribed.has(type)} />
                <code className="text-xs">{type}</code>
              </label>
            ))}
          </div>
          {errors.eventTypes ? (
            <p role="alert" className="mt-1 text-xs text-rose-600">
              {errors.eventTypes}
            </p>
          ) : null}
        </fieldset>
        <label className="flex items-center gap-2">
          <input type="checkbox" name="enabled" defaultChecked={config?.enabled ?? true} /> Enabled
        </label>
      </fieldset>
      {set.error ? <ErrorBox title="Not saved" error={set.error} /> : null}
      {canWrite ? (
        <div className="flex items-center gap-3">
          <Button type="submit" disabled={set.isPending}>
            {config ? 'Save endpoint' : 'Create endpoint'}
          </Button>
          {saved && !set.isPending ? <span className="text-emerald-700">Saved</span> : null}
        </div>
      ) : null}
    </form>
  );
}

function Deliveries({ apiKeyId }: { apiKeyId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { canWrite } = useSession();
  const input = { apiKeyId, limit: 25 };
  const list = useInfiniteQuery(trpc.webhooks.deliveries.infiniteQueryOptions(input, { getNextPageParam: (last) => last.nextCursor ?? undefined, refetchInterval: 2_000 }));
  const resend = useMutation(
    trpc.webhooks.resend.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.pathKey() }),
    }),
  );
  const rows = list.data?.pages.flatMap((p) => p.data) ?? [];
  return (
    <Card title="Delivery log">
      <div className="space-y-3">
        {resend.error ? <ErrorBox title="Not resent" error={resend.error} /> : null}
        {resend.isSuccess ? <p className="text-emerald-700">Resent: a fresh attempt with the same webhook-id is on its way.</p> : null}
        {list.isPending ? (
          <Loading />
        ) : list.error ? (
          <ErrorBox error={list.error} />
        ) : rows.length === 0 ? (
          <Empty title="No deliveries yet">Events of this key&apos;s project that the endpoint subscribes to appear here, with every attempt.</Empty>
        ) : (
          <>
            <Table head={['Event', 'Type', 'Created', 'Status', 'Attempts', '']} stickyLast>
              {rows.map((d) => (
                <tr key={d.deliveryId} data-testid="delivery" data-event-type={d.type} data-status={d.status}>
                  <Td>
                    <CopyableValue value={d.eventId} label="event id" width="sm" />
                  </Td>
                  <Td>{d.type}</Td>
                  <Td>{formatDate(d.createdAt)}</Td>
                  <Td>
                    <Badge value={d.status} />
                    {d.nextAttemptAt ? <span className="ml-1 text-xs text-slate-500">next {formatDate(d.nextAttemptAt)}</span> : null}
                  </Td>
                  <Td>
                    <ol className="flex gap-3 text-xs" data-testid="attempts">
                      {d.attempts.map((a, i) => (
                        <li key={i}>
                          {formatDate(a.attemptedAt)} · <span className="font-mono">{a.statusCode ?? 'no answer'}</span> · {a.latencyMs} ms{a.error ? ` · ${a.error}` : ''}
                        </li>
                      ))}
                    </ol>
                  </Td>
                  <Td sticky>
                    {canWrite ? (
                      <Button variant="secondary" disabled={resend.isPending} onClick={() => resend.mutate({ apiKeyId, eventId: d.eventId })}>
                        Resend
                      </Button>
                    ) : null}
                  </Td>
                </tr>
              ))}
            </Table>
            <LoadMore list={list} />
          </>
        )}
      </div>
    </Card>
  );
}

function Endpoint({ apiKeyId }: { apiKeyId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { canWrite } = useSession();
  const [secret, setSecret] = useState<string | null>(null);
  const config = useQuery(trpc.webhooks.get.queryOptions({ apiKeyId }));
  const rotate = useMutation(trpc.webhooks.rotateSecret.mutationOptions({ onSuccess: (r) => setSecret(r.secret) }));
  const ping = useMutation(
    trpc.webhooks.testPing.mutationOptions({
      onSettled: () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.deliveries.pathKey() }),
    }),
  );
  useEffect(() => setSecret(null), [apiKeyId]);
  if (config.isPending) return <Loading />;
  if (config.error) return <ErrorBox error={config.error} />;
  const c = config.data;
  return (
    <div className="space-y-6">
      {secret ? <SecretOnce label="Webhook signing secret" secret={secret} onDone={() => setSecret(null)} /> : null}
      <Card
        title="Endpoint"
        actions={
          c && canWrite ? (
            <>
              <Button variant="secondary" disabled={ping.isPending} onClick={() => ping.mutate({ apiKeyId })}>
                {ping.isPending ? 'Sending…' : 'Send test ping'}
              </Button>
              <Button
                variant="secondary"
                disabled={rotate.isPending}
                onClick={() => {
                  if (window.confirm('Rotate the signing secret? The previous one keeps signing for 24 hours.')) rotate.mutate({ apiKeyId });
                }}
              >
                Rotate secret
              </Button>
            </>
          ) : null
        }
      >
        <div className="space-y-4">
          {ping.data ? (
            <div data-testid="ping-result" role="status" className={ping.data.ok ? 'rounded-md bg-emerald-50 px-3 py-2 text-emerald-800' : 'rounded-md bg-rose-50 px-3 py-2 text-rose-800'}>
              Test ping {ping.data.ok ? 'delivered' : 'failed'}: status {ping.data.statusCode ?? 'none'} in {ping.data.latencyMs} ms
              {ping.data.error ? ` (${ping.data.error})` : ''} · <Mono>{ping.data.eventId}</Mono>
            </div>
          ) : null}
          {ping.error ? <ErrorBox title="Ping not sent" error={ping.error} /> : null}
          {rotate.error ? <ErrorBox title="Not rotated" error={rotate.error} /> : null}
          {c ? (
            <DefinitionList
              items={[
                ['State', <Badge key="s" value={c.enabled ? 'enabled' : 'disabled'} />],
                ['Failing since', c.failingSince ? formatDate(c.failingSince) : null],
                ['Disabled', c.disabledAt ? `${formatDate(c.disabledAt)}: ${c.disabledReason ?? ''}` : null],
                ['Previous secret valid until', c.previousSecretExpiresAt ? formatDate(c.previousSecretExpiresAt) : null],
                ['Updated', formatDate(c.updatedAt)],
              ]}
            />
          ) : (
            <p className="text-slate-500">No endpoint for this key yet.{canWrite ? ' Its signing secret is shown once, when you create it.' : ''}</p>
          )}
          <EndpointForm key={`${apiKeyId}:${c?.updatedAt ?? 'new'}`} apiKeyId={apiKeyId} config={c} onSecret={setSecret} />
        </div>
      </Card>
      <Deliveries apiKeyId={apiKeyId} />
    </div>
  );
}

function Webhooks({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const keys = useQuery(trpc.apiKeys.list.queryOptions({ projectId }));
  const [chosen, setChosen] = useState<string>('');
  if (keys.isPending) return <Loading />;
  if (keys.error) return <ErrorBox error={keys.error} />;
  const active = keys.data.filter((k) => !k.revokedAt);
  if (active.length === 0) return <Empty title="No active API key in this project">Webhooks are configured per API key; create a key first.</Empty>;
  const apiKeyId = active.some((k) => k.apiKeyId === chosen) ? chosen : active[0]!.apiKeyId;
  return (
    <div className="space-y-6">
      <label className="flex items-center gap-2">
        <span className="text-xs font-medium uppercase tracking-wide text-slate-500">API key</span>
        <Select aria-label="API key" value={apiKeyId} onChange={(e) => setChosen(e.target.value)}>
          {active.map((k) => (
            <option key={k.apiKeyId} value={k.apiKeyId}>
              {k.keyPrefix.replace(/…$/, "")}… ({k.environment}, {k.plan})
            </option>
          ))}
        </Select>
      </label>
      <Endpoint apiKeyId={apiKeyId} />
    </div>
  );
}

export default function WebhooksPage() {
  return (
    <>
      <PageHeader title="Webhooks" subtitle="One HTTPS endpoint per API key, for the events of the key's project." />
      <Suspense>
        <ProjectFromLink />
      </Suspense>
      <WithProject>{(projectId) => <Webhooks projectId={projectId} />}</WithProject>
    </>
  );
}
