'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo, useRef, useState } from 'react';
import { Button, Card, cx, ErrorBox } from '@/components/ui';
import { lineColumnOf, locateJsonPath, parseDraft } from '@/lib/policy-draft';
import { useTRPC, useTRPCClient } from '@/lib/trpc';
import { useDebounced, type PolicyLocation } from '@/lib/use-policy-draft';
import type { PolicyView } from './policy-list';
import { SchemaDownload } from './schema-download';

interface Problem {
  path: string;
  message: string;
  /** Where to select in the text; null when the path cannot be found. */
  range: { start: number; end: number } | null;
}

const VALIDATE_AFTER_MS = 400;

/** Live problems of the draft: JSON syntax in the browser, then the schema through `policies.validate` (debounced; stores nothing). */
function useDraftProblems(draft: string) {
  const client = useTRPCClient();
  const settled = useDebounced(draft, VALIDATE_AFTER_MS);
  const parsed = useMemo(() => parseDraft(settled), [settled]);
  const validation = useQuery({
    queryKey: ['policy-draft-validation', settled],
    queryFn: () => client.policies.validate.mutate({ document: parsed.ok ? parsed.value : null }),
    enabled: parsed.ok,
    staleTime: Infinity,
  });
  let problems: Problem[] = [];
  if (!parsed.ok) {
    problems = settled.trim() === '' ? [] : [{ path: '', message: `JSON syntax: ${parsed.message}`, range: parsed.offset === null ? null : { start: parsed.offset, end: parsed.offset + 1 } }];
  } else if (validation.data) {
    problems = validation.data.problems.map((p) => ({ ...p, range: locateJsonPath(settled, p.path) }));
  }
  const checking = draft !== settled || (parsed.ok && validation.isFetching);
  return { parsed, problems, checking, valid: parsed.ok && validation.data?.ok === true && draft === settled, validationError: validation.error };
}

/**
 * The draft editor: JSON text (kept in this browser until activated), its problems as you type,
 * each one selecting its place in the text, and Activate (the next version when the id exists).
 */
export function PolicyEditor({
  location,
  draft,
  setDraft,
  activePolicies,
}: {
  location: PolicyLocation;
  draft: string;
  setDraft: (text: string) => void;
  activePolicies: PolicyView[];
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const textarea = useRef<HTMLTextAreaElement>(null);
  const [selectedProblem, setSelectedProblem] = useState<string | null>(null);
  const { parsed, problems, checking, valid, validationError } = useDraftProblems(draft);
  const activate = useMutation(
    trpc.policies.activate.mutationOptions({
      onSuccess: async () => {
        setDraft('');
        await queryClient.invalidateQueries({ queryKey: trpc.policies.pathKey() });
      },
    }),
  );

  const draftId = parsed.ok && parsed.value && typeof parsed.value === 'object' ? (parsed.value as { id?: unknown }).id : undefined;
  const replaces = typeof draftId === 'string' ? activePolicies.find((p) => p.policyId === draftId) : undefined;

  function select(problem: Problem, key: string) {
    setSelectedProblem(key);
    const element = textarea.current;
    if (!element || !problem.range) return;
    element.focus();
    element.setSelectionRange(problem.range.start, problem.range.end);
    const { line } = lineColumnOf(element.value, problem.range.start);
    const lineHeight = parseFloat(getComputedStyle(element).lineHeight) || 20;
    element.scrollTop = Math.max(0, (line - 4) * lineHeight);
  }

  return (
    <Card
      title="Draft"
      actions={
        <>
          <SchemaDownload />
          <Button variant="secondary" disabled={draft === '' || activate.isPending} onClick={() => setDraft('')}>
            Discard draft
          </Button>
          <Button disabled={!valid || activate.isPending} onClick={() => parsed.ok && activate.mutate({ ...location, document: parsed.value })}>
            {activate.isPending ? 'Activating…' : 'Activate'}
          </Button>
        </>
      }
    >
      <div className="space-y-3">
        <p className="text-xs text-slate-500">
          The draft lives only in this browser until you activate it: nothing is stored on the server before activation (validation reads it and keeps nothing).
          Activating an id that exists makes its next version and retires the current one.
        </p>
        <textarea
          ref={textarea}
          aria-label="Policy JSON"
          spellCheck={false}
          value={draft}
          onChange={(e) => {
            setDraft(e.target.value);
            setSelectedProblem(null);
          }}
          placeholder='Pick a template above, edit an active policy, or paste a permissions.policy.v1 document: {"id": "…", "schemaVersion": "permissions.policy.v1", …}'
          rows={22}
          className="w-full rounded-md border border-slate-300 bg-slate-50 p-3 font-mono text-xs leading-5 focus:border-indigo-500 focus:outline-none"
        />
        <div data-testid="policy-validation" aria-live="polite" className="text-sm">
          {draft.trim() === '' ? (
            <span className="text-slate-500">No draft.</span>
          ) : checking ? (
            <span className="text-slate-500">Checking…</span>
          ) : valid ? (
            <span className="text-emerald-700">
              Valid.{' '}
              {replaces
                ? `Activating makes version ${Number(replaces.version) + 1} of ${replaces.policyId} (now version ${replaces.version}).`
                : typeof draftId === 'string'
                  ? `Activating makes ${draftId} active (version 1, or the next one if it existed before).`
                  : ''}
            </span>
          ) : validationError ? (
            <ErrorBox title="Could not validate" error={validationError} />
          ) : (
            <span className="text-rose-700">{problems.length === 1 ? '1 problem' : `${problems.length} problems`}</span>
          )}
        </div>
        {!checking && problems.length > 0 ? <ProblemList problems={problems} selected={selectedProblem} onSelect={select} /> : null}
        {activate.isSuccess ? (
          <p role="status" className="text-emerald-700">
            Activated {activate.data.policyId} version {activate.data.version}.
          </p>
        ) : null}
        {activate.error ? <ErrorBox title="Not activated" error={activate.error} /> : null}
      </div>
    </Card>
  );
}

function ProblemList({ problems, selected, onSelect }: { problems: Problem[]; selected: string | null; onSelect: (problem: Problem, key: string) => void }) {
  return (
    <ul aria-label="Problems" className="space-y-1">
      {problems.map((problem, i) => {
        const key = `${i}:${problem.path}`;
        return (
          <li key={key}>
            <button
              type="button"
              data-testid="policy-problem"
              data-path={problem.path}
              onClick={() => onSelect(problem, key)}
              className={cx(
                'w-full rounded-md border px-3 py-1.5 text-left text-sm',
                selected === key ? 'border-rose-400 bg-rose-100' : 'border-rose-200 bg-rose-50 hover:bg-rose-100',
              )}
            >
              <code className="font-mono text-xs font-semibold text-rose-800">{problem.path || '(document)'}</code>{' '}
              <span className="text-rose-800">{problem.message}</span>
            </button>
          </li>
        );
      })}
    </ul>
  );
}
