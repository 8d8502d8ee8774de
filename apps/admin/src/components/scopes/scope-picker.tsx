'use client';

import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Field, Input, Select } from '@/components/ui';
import { useTRPC } from '@/lib/trpc';
import type { ScopeLocation } from './shared';

const SCOPE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** A scope id typed (checked like REST: 1-128 of A-Z a-z 0-9 . _ : -) or chosen among the ones in use. */
export function ScopePicker({ location, scopeId, onOpen }: { location: ScopeLocation; scopeId: string | null; onOpen: (scopeId: string) => void }) {
  const trpc = useTRPC();
  const ids = useQuery(trpc.scopes.ids.queryOptions(location));
  const [typed, setTyped] = useState('');
  const typedValid = SCOPE_ID.test(typed.trim());
  return (
    <form
      aria-label="Open a scope"
      className="flex flex-wrap items-end gap-3"
      onSubmit={(e) => {
        e.preventDefault();
        if (typedValid) onOpen(typed.trim());
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
          <Select aria-label="Scopes in use" value={scopeId ?? ''} onChange={(e) => e.target.value && onOpen(e.target.value)}>
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
  );
}
