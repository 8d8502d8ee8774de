'use client';

import { apiFailure, type RouterOutputs } from '@/lib/trpc';

export type ScopeLocation = { projectId: string; environment: 'development' | 'production' };
export type Assignment = RouterOutputs['scopes']['assignments']['assignments'][number];
export type Actor = { type: string; id: string | null };

/** `staff 1a2b3c4d…`, `api_key …`, `operator`. */
export const actorLabel = (actor: Actor | null | undefined) => (actor ? `${actor.type}${actor.id ? ` ${actor.id.slice(0, 8)}…` : ''}` : '—');

/** `finance` for a role, `region = eu` for an attribute. */
export const assignmentLabel = (a: Assignment) => ('role' in a ? a.role : `${a.attribute} = ${a.value}`);

/** A refused write because the revision shown is no longer the current one (someone else wrote first). */
export const isStaleRevision = (error: unknown) => {
  const failure = apiFailure(error);
  return failure.status === 409 && failure.code === 'CONFLICT';
};

export function AssignmentChips({ assignments }: { assignments: Assignment[] }) {
  if (assignments.length === 0) return <span className="text-slate-400">none</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {assignments.map((a) => (
        <span
          key={assignmentLabel(a)}
          data-testid="assignment-chip"
          className={'role' in a ? 'rounded bg-indigo-50 px-1.5 py-0.5 text-xs text-indigo-800' : 'rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-700'}
        >
          {'role' in a ? `role ${a.role}` : `${a.attribute}=${a.value}`}
        </span>
      ))}
    </span>
  );
}
