'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { useProject } from '@/components/project';
import { Badge, Button, Card, Empty, ErrorBox, Field, formatDate, Input, Loading, Mono, PageHeader, SecretOnce, Select, Table, Td } from '@/components/ui';
import { CopyableValue } from '@/components/values';
import { fieldErrors } from '@/lib/forms';
import { createProjectApiKeyInput, createProjectInput, environments, plans, updateApiKeyInput } from '@/lib/schemas';
import { useSession } from '@/lib/session';
import { useTRPC, type RouterOutputs } from '@/lib/trpc';

type ApiKey = RouterOutputs['apiKeys']['list'][number];

const splitList = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);

function NewProject() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { setProjectId } = useProject();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const create = useMutation(
    trpc.projects.create.mutationOptions({
      onSuccess: async (project) => {
        await queryClient.invalidateQueries({ queryKey: trpc.projects.list.queryKey() });
        setProjectId(project.projectId);
      },
    }),
  );
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const parsed = createProjectInput.safeParse({ name: String(new FormData(form).get('name') ?? '') });
    if (!parsed.success) return setErrors(fieldErrors(parsed.error));
    setErrors({});
    create.mutate(parsed.data, { onSuccess: () => form.reset() });
  }
  return (
    <form onSubmit={submit} noValidate className="flex flex-wrap items-end gap-2">
      <div className="w-64">
        <Field label="New project name" error={errors.name}>
          <Input name="name" placeholder="e.g. checkout" />
        </Field>
      </div>
      <Button type="submit" disabled={create.isPending}>
        Create project
      </Button>
      {create.error ? <ErrorBox title="The project was not created" error={create.error} /> : null}
    </form>
  );
}

function NewApiKey({ projectId, onSecret }: { projectId: string; onSecret: (secret: { label: string; value: string }) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [plan, setPlan] = useState<string>('free');
  const create = useMutation(
    trpc.apiKeys.create.mutationOptions({
      onSuccess: async (created) => {
        onSecret({ label: `New API key ${created.apiKeyId}`, value: created.apiKey });
        await queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey({ projectId }) });
        await queryClient.invalidateQueries({ queryKey: trpc.projects.list.queryKey() });
      },
    }),
  );
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const rate = String(form.get('rateLimitPerMinute') ?? '').trim();
    const allowlist = splitList(String(form.get('ipAllowlist') ?? ''));
    const parsed = createProjectApiKeyInput.safeParse({
      projectId,
      environment: form.get('environment'),
      plan: form.get('plan'),
      ...(rate !== '' ? { rateLimitPerMinute: Number(rate) } : {}),
      ...(allowlist.length ? { ipAllowlist: allowlist } : {}),
    });
    if (!parsed.success) return setErrors(fieldErrors(parsed.error));
    setErrors({});
    create.mutate(parsed.data);
  }
  return (
    <form onSubmit={submit} noValidate aria-label="New API key" className="grid grid-cols-1 gap-3 md:grid-cols-5 md:items-end">
      <Field label="Environment" error={errors.environment}>
        <Select name="environment" defaultValue="development" className="w-full">
          {environments.map((e) => (
            <option key={e}>{e}</option>
          ))}
        </Select>
      </Field>
      <Field label="Plan" error={errors.plan}>
        <Select name="plan" value={plan} onChange={(e) => setPlan(e.target.value)} className="w-full">
          {plans.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </Select>
      </Field>
      <Field label="Requests per minute" error={errors.rateLimitPerMinute} hint={plan === 'scale' ? '0 = unlimited' : 'scale plan only'}>
        <Input name="rateLimitPerMinute" inputMode="numeric" disabled={plan !== 'scale'} placeholder="plan default" />
      </Field>
      <Field label="IP allowlist" error={errors.ipAllowlist} hint="CIDRs or addresses, comma-separated">
        <Input name="ipAllowlist" placeholder="any address" />
      </Field>
      <Button type="submit" disabled={create.isPending}>
        Create API key
      </Button>
      {create.error ? (
        <div className="md:col-span-5">
          <ErrorBox title="The key was not created" error={create.error} />
        </div>
      ) : null}
    </form>
  );
}

function EditKey({ apiKey, onDone }: { apiKey: ApiKey; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [plan, setPlan] = useState(apiKey.plan);
  const update = useMutation(
    trpc.apiKeys.update.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey({ projectId: apiKey.projectId }) });
        onDone();
      },
    }),
  );
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const rate = String(form.get('rateLimitPerMinute') ?? '').trim();
    const parsed = updateApiKeyInput.safeParse({
      apiKeyId: apiKey.apiKeyId,
      plan,
      rateLimitPerMinute: plan === 'scale' && rate !== '' ? Number(rate) : null,
      ipAllowlist: splitList(String(form.get('ipAllowlist') ?? '')),
    });
    if (!parsed.success) return setErrors(fieldErrors(parsed.error));
    setErrors({});
    update.mutate(parsed.data);
  }
  return (
    <form onSubmit={submit} noValidate aria-label="Edit API key" className="grid grid-cols-1 gap-3 bg-slate-50 p-3 md:grid-cols-4 md:items-end">
      <Field label="Plan" error={errors.plan}>
        <Select value={plan} onChange={(e) => setPlan(e.target.value)} className="w-full">
          {plans.map((p) => (
            <option key={p}>{p}</option>
          ))}
        </Select>
      </Field>
      <Field label="Requests per minute" error={errors.rateLimitPerMinute} hint={plan === 'scale' ? 'empty = plan default, 0 = unlimited' : 'scale plan only'}>
        <Input name="rateLimitPerMinute" inputMode="numeric" disabled={plan !== 'scale'} defaultValue={apiKey.rateLimitPerMinute ?? ''} />
      </Field>
      <Field label="IP allowlist" error={errors.ipAllowlist} hint="empty = any address">
        <Input name="ipAllowlist" defaultValue={apiKey.ipAllowlist.join(', ')} />
      </Field>
      <div className="flex gap-2">
        <Button type="submit" disabled={update.isPending}>
          Save
        </Button>
        <Button variant="secondary" onClick={onDone}>
          Cancel
        </Button>
      </div>
      {update.error ? (
        <div className="md:col-span-4">
          <ErrorBox title="The key was not changed" error={update.error} />
        </div>
      ) : null}
    </form>
  );
}

function ApiKeys({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { canWrite } = useSession();
  const [secret, setSecret] = useState<{ label: string; value: string } | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const keys = useQuery(trpc.apiKeys.list.queryOptions({ projectId }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.apiKeys.list.queryKey({ projectId }) });
  const rotate = useMutation(
    trpc.apiKeys.rotate.mutationOptions({
      onSuccess: async (rotated) => {
        setSecret({ label: `New secret of API key ${rotated.apiKeyId}`, value: rotated.apiKey });
        await refresh();
      },
    }),
  );
  const revoke = useMutation(trpc.apiKeys.revoke.mutationOptions({ onSuccess: refresh }));
  return (
    <Card title="API keys">
      <div className="space-y-4">
        {secret ? <SecretOnce label={secret.label} secret={secret.value} onDone={() => setSecret(null)} /> : null}
        {canWrite ? <NewApiKey projectId={projectId} onSecret={setSecret} /> : null}
        {rotate.error ? <ErrorBox title="The key was not rotated" error={rotate.error} /> : null}
        {revoke.error ? <ErrorBox title="The key was not revoked" error={revoke.error} /> : null}
        {keys.isPending ? (
          <Loading />
        ) : keys.error ? (
          <ErrorBox error={keys.error} />
        ) : keys.data.length === 0 ? (
          <Empty title="No API keys in this project">{canWrite ? 'Create one above; its secret is shown once.' : 'An owner or developer can create one.'}</Empty>
        ) : (
          <Table head={['Key', 'Environment', 'Plan', 'Requests/min', 'IP allowlist', 'Created', 'Status', '']} stickyLast>
            {keys.data.map((key) => (
              <KeyRow
                key={key.apiKeyId}
                apiKey={key}
                canWrite={canWrite}
                editing={editing === key.apiKeyId}
                onEdit={() => setEditing(editing === key.apiKeyId ? null : key.apiKeyId)}
                onRotate={() => rotate.mutate({ apiKeyId: key.apiKeyId })}
                onRevoke={() => {
                  if (window.confirm(`Revoke ${key.keyPrefix.replace(/…$/, "")}…? Requests with it stop working at once.`)) revoke.mutate({ apiKeyId: key.apiKeyId });
                }}
              />
            ))}
          </Table>
        )}
      </div>
    </Card>
  );
}

function KeyRow(props: { apiKey: ApiKey; canWrite: boolean; editing: boolean; onEdit: () => void; onRotate: () => void; onRevoke: () => void }) {
  const { apiKey: key, canWrite, editing } = props;
  const active = !key.revokedAt;
  return (
    <>
      <tr data-testid={`api-key-${key.apiKeyId}`}>
        <Td>
          <Mono title={key.apiKeyId}>{key.keyPrefix.replace(/…$/, "")}…</Mono> <CopyableValue value={key.apiKeyId} label="API key id" width="xs" />
        </Td>
        <Td>{key.environment}</Td>
        <Td>{key.plan}</Td>
        <Td>{key.rateLimitPerMinute === null ? 'plan default' : key.rateLimitPerMinute === 0 ? 'unlimited' : key.rateLimitPerMinute}</Td>
        <Td>{key.ipAllowlist.length ? <CopyableValue value={key.ipAllowlist.join(', ')} label="IP allowlist" width="sm" /> : <span className="text-slate-400">any</span>}</Td>
        <Td>{formatDate(key.createdAt)}</Td>
        <Td>
          <Badge value={active ? 'active' : 'revoked'} />
        </Td>
        <Td sticky className="text-right">
          {canWrite && active ? (
            <span className="inline-flex gap-1">
              <Button variant="secondary" onClick={props.onEdit}>
                Edit
              </Button>
              <Button variant="secondary" onClick={props.onRotate}>
                Rotate
              </Button>
              <Button variant="danger" onClick={props.onRevoke}>
                Revoke
              </Button>
            </span>
          ) : null}
        </Td>
      </tr>
      {editing && canWrite ? (
        <tr>
          <td colSpan={8}>
            <EditKey apiKey={key} onDone={props.onEdit} />
          </td>
        </tr>
      ) : null}
    </>
  );
}

export default function ProjectsPage() {
  const { projects, project, setProjectId, isPending, error } = useProject();
  const { canWrite } = useSession();
  return (
    <>
      <PageHeader title="Projects & API keys" subtitle="Each API key belongs to one project; wallets live in the project of the key that created them." />
      <div className="space-y-6">
        <Card title="Projects">
          <div className="space-y-4">
            {canWrite ? <NewProject /> : null}
            {isPending ? (
              <Loading />
            ) : error ? (
              <ErrorBox error={error} />
            ) : !projects?.length ? (
              <Empty title="No project yet">{canWrite ? 'Create the first one above.' : 'An owner or developer can create one.'}</Empty>
            ) : (
              <Table head={['Name', 'Wallets', 'API keys', 'Created', '']}>
                {projects.map((p) => (
                  <tr key={p.projectId} className={p.projectId === project?.projectId ? 'bg-indigo-50/50' : undefined}>
                    <Td>
                      <span className="font-medium">{p.name}</span> <CopyableValue value={p.projectId} label="project id" width="sm" />
                    </Td>
                    <Td>{p.walletCount}</Td>
                    <Td>{p.apiKeyCount}</Td>
                    <Td>{formatDate(p.createdAt)}</Td>
                    <Td className="text-right">
                      {p.projectId === project?.projectId ? (
                        <span className="text-xs text-indigo-700">current</span>
                      ) : (
                        <Button variant="secondary" onClick={() => setProjectId(p.projectId)}>
                          Open
                        </Button>
                      )}
                    </Td>
                  </tr>
                ))}
              </Table>
            )}
          </div>
        </Card>
        {project ? <ApiKeys projectId={project.projectId} /> : null}
      </div>
    </>
  );
}
