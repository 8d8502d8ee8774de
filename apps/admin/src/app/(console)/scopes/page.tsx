'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { WithProject } from '@/components/project';
import { ExtensionSwitch } from '@/components/scopes/extension-switch';
import { ScopeMembers } from '@/components/scopes/scope-members';
import { UserAssignments } from '@/components/scopes/user-assignments';
import type { ScopeLocation } from '@/components/scopes/shared';
import { Button, Card, Field, Input, Mono, PageHeader, Select } from '@/components/ui';
import { useTRPC } from '@/lib/trpc';

const SCOPE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function Scopes({ location }: { location: ScopeLocation }) {
  const trpc = useTRPC();
  const ids = useQuery(trpc.scopes.ids.queryOptions(location));
  const [typed, setTyped] = useState('');
  const [scopeId, setScopeId] = useState<string | null>(null);
  const [typedUser, setTypedUser] = useState('');
  const [userId, setUserId] = useState<string | null>(null);
  const open = (id: string) => {
    setScopeId(id);
    setUserId(null);
  };
  const typedValid = SCOPE_ID.test(typed.trim());
  return (
    <div className="space-y-6">
      <ExtensionSwitch location={location} />
      <Card title="Scope">
        <div className="space-y-3">
          <form
            aria-label="Open a scope"
            className="flex flex-wrap items-end gap-3"
            onSubmit={(e) => {
              e.preventDefault();
              if (typedValid) open(typed.trim());
            }}
          >
            <div className="w-72">
              <Field label="Scope id" error={typed && !typedValid ? '1-128 characters of A-Z a-z 0-9 . _ : -' : undefined}>
                <Input value={typed} onChange={(e) => setTyped(e.target.value)} placeholder="acme:org-1" />
              </Field>
            </div>
            <Button type="submit" disabled={!typedValid}>
              Open scope
            </Button>
            {ids.data && ids.data.scopeIds.length > 0 ? (
              <label className="flex items-center gap-2">
                <span className="text-xs font-medium text-slate-600">or one in use</span>
                <Select aria-label="Scopes in use" value={scopeId ?? ''} onChange={(e) => e.target.value && open(e.target.value)}>
                  <option value="">choose…</option>
                  {ids.data.scopeIds.map((id) => (
                    <option key={id} value={id}>
                      {id}
                    </option>
                  ))}
                </Select>
              </label>
            ) : null}
          </form>
          <p className="text-xs text-slate-500">Scope ids are yours to choose (one per customer organisation, say); a scope exists once a user is assigned to it or a wallet is bound to it.</p>
        </div>
      </Card>
      {scopeId ? (
        <Card
          title={
            <>
              Members of <Mono>{scopeId}</Mono>
            </>
          }
        >
          <section aria-label="Scope members" className="space-y-4">
            <ScopeMembers location={location} scopeId={scopeId} onOpen={setUserId} />
            <form
              aria-label="Open a user"
              className="flex flex-wrap items-end gap-3"
              onSubmit={(e) => {
                e.preventDefault();
                if (typedUser.trim()) setUserId(typedUser.trim());
              }}
            >
              <div className="w-96">
                <Field label="User id" hint="The userId of `npm run users -- signup` (users are per project)">
                  <Input value={typedUser} onChange={(e) => setTypedUser(e.target.value)} placeholder="00000000-0000-0000-0000-000000000000" />
                </Field>
              </div>
              <Button type="submit" variant="secondary" disabled={!typedUser.trim()}>
                Open user
              </Button>
            </form>
          </section>
        </Card>
      ) : null}
      {scopeId && userId ? <UserAssignments key={`${scopeId}:${userId}`} at={{ ...location, scopeId, userId }} onClose={() => setUserId(null)} /> : null}
    </div>
  );
}

export default function ScopesPage() {
  const [environment, setEnvironment] = useState<ScopeLocation['environment']>('development');
  return (
    <>
      <PageHeader
        title="Authorization scopes"
        subtitle="Who may approve what: users' roles and attributes per scope, and the permissions v2 extension of this project and environment."
        actions={
          <label className="flex items-center gap-2">
            <span className="text-xs font-medium uppercase tracking-wide text-slate-500">Environment</span>
            <Select aria-label="Environment" value={environment} onChange={(e) => setEnvironment(e.target.value as ScopeLocation['environment'])}>
              <option value="development">development</option>
              <option value="production">production</option>
            </Select>
          </label>
        }
      />
      <WithProject>{(projectId) => <Scopes key={`${projectId}:${environment}`} location={{ projectId, environment }} />}</WithProject>
    </>
  );
}
