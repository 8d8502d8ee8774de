'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button, Card, Empty, ErrorBox, Field, formatDate, Input, Loading, Mono } from '@/components/ui';
import { useSession } from '@/lib/session';
import { useTRPC } from '@/lib/trpc';
import { actorLabel, AssignmentChips, assignmentLabel, isStaleRevision, type Assignment, type ScopeLocation } from './shared';

type UserAt = ScopeLocation & { scopeId: string; userId: string };

/**
 * One user's assignments in a scope: the current set with its revision, an editor for owners and
 * developers (Save sends the revision shown; a stale one shows the conflict and reloads), and every
 * revision with who wrote it when.
 */
export function UserAssignments({ at, onClose }: { at: UserAt; onClose: () => void }) {
  const trpc = useTRPC();
  const { canWrite } = useSession();
  const current = useQuery(trpc.scopes.assignments.queryOptions(at));
  // Kept here: the editor starts over (new key) with the revision reloaded after a conflict.
  const [conflict, setConflict] = useState(false);
  return (
    <Card
      title={
        <>
          User <Mono>{at.userId}</Mono> in <Mono>{at.scopeId}</Mono>
        </>
      }
      actions={
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      }
    >
      <section aria-label="User assignments" className="space-y-4">
        {current.isPending ? (
          <Loading />
        ) : current.error ? (
          <ErrorBox title="Assignments not available" error={current.error} />
        ) : (
          <>
            <p className="flex flex-wrap items-center gap-2">
              <AssignmentChips assignments={current.data.assignments} />
              <span className="text-slate-500">
                revision <span data-testid="assignments-revision">{current.data.revision}</span>
                {current.data.updatedAt ? `, ${formatDate(current.data.updatedAt)}` : ''}
              </span>
            </p>
            {conflict ? (
              <p role="alert" data-testid="assignments-conflict" className="rounded-md border border-amber-300 bg-amber-50 px-3 py-2 text-amber-900">
                Someone saved another revision of these assignments first. The current one is shown now; make your change again.
              </p>
            ) : null}
            {canWrite ? (
              <AssignmentEditor key={current.data.revision} at={at} revision={current.data.revision} initial={current.data.assignments} onConflict={setConflict} />
            ) : null}
          </>
        )}
        <AssignmentHistory at={at} />
      </section>
    </Card>
  );
}

function AssignmentEditor({ at, revision, initial, onConflict }: { at: UserAt; revision: number; initial: Assignment[]; onConflict: (stale: boolean) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [list, setList] = useState<Assignment[]>(initial);
  const [role, setRole] = useState('');
  const [attribute, setAttribute] = useState('');
  const [value, setValue] = useState('');
  const save = useMutation(
    trpc.scopes.replaceAssignments.mutationOptions({
      onSuccess: () => {
        onConflict(false);
        return queryClient.invalidateQueries({ queryKey: trpc.scopes.pathKey() });
      },
      onError: (error) => {
        // Someone saved another revision since this one was shown: say so and show theirs.
        if (isStaleRevision(error)) {
          onConflict(true);
          void queryClient.invalidateQueries({ queryKey: trpc.scopes.pathKey() });
        }
      },
    }),
  );
  const add = (entry: Assignment) => setList((l) => (l.some((a) => assignmentLabel(a) === assignmentLabel(entry)) ? l : [...l, entry]));
  return (
    <form
      aria-label="Edit assignments"
      className="space-y-3 rounded-md border border-slate-200 p-3"
      onSubmit={(e) => {
        e.preventDefault();
        save.mutate({ ...at, expectedRevision: revision, assignments: list });
      }}
    >
      <ul className="flex flex-wrap gap-2" aria-label="Assignments to save">
        {list.length === 0 ? <li className="text-slate-400">no assignments (saving removes the user from the scope)</li> : null}
        {list.map((a) => (
          <li key={assignmentLabel(a)} className="flex items-center gap-1 rounded bg-slate-100 px-2 py-0.5 text-xs">
            {assignmentLabel(a)}
            <button type="button" aria-label={`Remove ${assignmentLabel(a)}`} className="text-rose-600" onClick={() => setList((l) => l.filter((x) => x !== a))}>
              ×
            </button>
          </li>
        ))}
      </ul>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-[1fr_auto_1fr_1fr_auto] sm:items-end">
        <Field label="Role">
          <Input value={role} onChange={(e) => setRole(e.target.value)} placeholder="finance" />
        </Field>
        <Button variant="secondary" disabled={!role.trim()} onClick={() => {
            add({ role: role.trim() });
            setRole('');
          }}>
          Add role
        </Button>
        <Field label="Attribute">
          <Input value={attribute} onChange={(e) => setAttribute(e.target.value)} placeholder="region" />
        </Field>
        <Field label="Value">
          <Input value={value} onChange={(e) => setValue(e.target.value)} placeholder="eu" />
        </Field>
        <Button
          variant="secondary"
          disabled={!attribute.trim() || !value.trim()}
          onClick={() => {
            add({ attribute: attribute.trim(), value: value.trim() });
            setAttribute('');
            setValue('');
          }}
        >
          Add attribute
        </Button>
      </div>
      <div className="flex items-center gap-3">
        <Button type="submit" disabled={save.isPending}>
          Save assignments
        </Button>
        <span className="text-xs text-slate-500">replaces revision {revision}</span>
      </div>
      {save.error && !isStaleRevision(save.error) ? (
        <ErrorBox title="Not saved" error={save.error} />
      ) : save.isSuccess ? (
        <p role="status" className="text-emerald-700">
          Saved revision {save.data.revision}.
        </p>
      ) : null}
    </form>
  );
}

function AssignmentHistory({ at }: { at: UserAt }) {
  const trpc = useTRPC();
  const history = useQuery(trpc.scopes.assignmentHistory.queryOptions({ ...at, limit: 50 }));
  return (
    <div className="space-y-2">
      <h3 className="text-sm font-semibold text-slate-700">Assignment history</h3>
      {history.isPending ? (
        <Loading />
      ) : history.error ? (
        <ErrorBox error={history.error} />
      ) : history.data.data.length === 0 ? (
        <Empty title="Never assigned in this scope" />
      ) : (
        <ol className="space-y-1" aria-label="Assignment history">
          {history.data.data.map((h) => (
            <li key={h.revision} data-testid="assignment-history-item" className="flex flex-wrap items-center gap-2">
              <span className="font-mono text-xs">r{h.revision}</span>
              <AssignmentChips assignments={h.assignments} />
              <span className="text-xs text-slate-500">
                {formatDate(h.createdAt)} by {actorLabel(h.createdBy)}
              </span>
            </li>
          ))}
        </ol>
      )}
      {history.data?.pagination.hasMore ? <p className="text-xs text-slate-500">Older revisions: GET …/assignments/history with the cursor.</p> : null}
    </div>
  );
}
