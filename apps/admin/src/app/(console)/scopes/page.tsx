'use client';

import { useState } from 'react';
import { EnvironmentPicker } from '@/components/environment-picker';
import { WithProject } from '@/components/project';
import { ExtensionSwitch } from '@/components/scopes/extension-switch';
import { ScopePicker } from '@/components/scopes/scope-picker';
import { ScopeMembers } from '@/components/scopes/scope-members';
import { UserAssignments } from '@/components/scopes/user-assignments';
import type { ScopeLocation } from '@/components/scopes/shared';
import { Button, Card, Field, Input, Mono, PageHeader } from '@/components/ui';

function Scopes({ location }: { location: ScopeLocation }) {
  const [scopeId, setScopeId] = useState<string | null>(null);
  const [typedUser, setTypedUser] = useState('');
  const [userId, setUserId] = useState<string | null>(null);
  const open = (id: string) => {
    setScopeId(id);
    setUserId(null);
  };
  return (
    <div className="space-y-6">
      <ExtensionSwitch location={location} />
      <Card title="Scope">
        <div className="space-y-3">
          <ScopePicker location={location} scopeId={scopeId} onOpen={open} />
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
          <EnvironmentPicker value={environment} onChange={setEnvironment} />
        }
      />
      <WithProject>{(projectId) => <Scopes key={`${projectId}:${environment}`} location={{ projectId, environment }} />}</WithProject>
    </>
  );
}
