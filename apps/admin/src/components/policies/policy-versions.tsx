'use client';

import { useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Badge, Button, Card, cx, ErrorBox, formatDate, Loading, Select } from '@/components/ui';
import { diffLines, jsonLines, sideBySideRows, type DiffRow } from '@/lib/line-diff';
import { useTRPC, type RouterOutputs } from '@/lib/trpc';
import type { PolicyLocation } from '@/lib/use-policy-draft';

type Version = RouterOutputs['policies']['versions']['versions'][number];

const versionLabel = (v: Version) => `v${v.version} · ${v.status} · ${formatDate(v.createdAt)}`;

/** Every version of one policy, and two of them side by side with their JSON line diff. */
export function PolicyVersions({ location, policyId, onClose }: { location: PolicyLocation; policyId: string; onClose: () => void }) {
  const trpc = useTRPC();
  const versions = useQuery(trpc.policies.versions.queryOptions({ ...location, policyId }));
  const [leftChoice, setLeftChoice] = useState<string | null>(null);
  const [rightChoice, setRightChoice] = useState<string | null>(null);
  const list = versions.data?.versions ?? [];
  // Newest first: by default the previous version on the left, the newest on the right.
  const right = list.find((v) => v.version === rightChoice) ?? list[0];
  const left = list.find((v) => v.version === leftChoice) ?? list[1] ?? list[0];

  return (
    <Card
      title={
        <>
          Versions of <code className="font-mono">{policyId}</code>
        </>
      }
      actions={
        <Button variant="secondary" onClick={onClose}>
          Close
        </Button>
      }
    >
      {versions.isPending ? (
        <Loading />
      ) : versions.error ? (
        <ErrorBox error={versions.error} />
      ) : (
        <div className="space-y-4">
          <ol className="space-y-1 text-sm" aria-label="Versions">
            {list.map((v) => (
              <li key={v.version} data-testid="policy-version-item" className="flex flex-wrap items-center gap-2">
                <span className="font-mono">v{v.version}</span> <Badge value={v.status} />
                <span className="text-slate-500">
                  created {formatDate(v.createdAt)} by {v.createdBy.type}
                  {v.deactivatedAt ? `, deactivated ${formatDate(v.deactivatedAt)}` : ''}
                  {v.replacedBy ? `, replaced by v${v.replacedBy}` : ''}
                </span>
              </li>
            ))}
          </ol>
          {left && right ? (
            <>
              <div className="grid grid-cols-2 gap-3">
                <Select aria-label="Left version" value={left.version} onChange={(e) => setLeftChoice(e.target.value)}>
                  {list.map((v) => (
                    <option key={v.version} value={v.version}>
                      {versionLabel(v)}
                    </option>
                  ))}
                </Select>
                <Select aria-label="Right version" value={right.version} onChange={(e) => setRightChoice(e.target.value)}>
                  {list.map((v) => (
                    <option key={v.version} value={v.version}>
                      {versionLabel(v)}
                    </option>
                  ))}
                </Select>
              </div>
              <VersionDiff left={left} right={right} />
            </>
          ) : null}
        </div>
      )}
    </Card>
  );
}

function VersionDiff({ left, right }: { left: Version; right: Version }) {
  const rows = useMemo(() => sideBySideRows(diffLines(jsonLines(left.definition), jsonLines(right.definition))), [left, right]);
  const changes = rows.filter((r) => r.left?.changed || r.right?.changed).length;
  return (
    <div className="space-y-2">
      <p className="text-xs text-slate-500" data-testid="policy-diff-summary">
        {changes === 0 ? 'The two versions are identical.' : `${changes} changed line${changes === 1 ? '' : 's'} between v${left.version} and v${right.version}.`}
      </p>
      <div className="overflow-x-auto rounded-md border border-slate-200">
        <table className="w-full table-fixed font-mono text-xs" aria-label="Version diff">
          <tbody>
            {rows.map((row, i) => (
              <tr key={i}>
                <DiffCell side={row.left} kind="removed" />
                <DiffCell side={row.right} kind="added" />
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function DiffCell({ side, kind }: { side: DiffRow['left']; kind: 'removed' | 'added' }) {
  if (!side) return <td className="w-1/2 bg-slate-50" colSpan={1} />;
  return (
    <td
      data-testid={side.changed ? `diff-${kind}` : undefined}
      className={cx('w-1/2 whitespace-pre-wrap break-all px-2 align-top', side.changed && (kind === 'removed' ? 'bg-rose-50 text-rose-900' : 'bg-emerald-50 text-emerald-900'))}
    >
      <span className="mr-2 inline-block w-6 select-none text-right text-slate-400">{side.line}</span>
      {side.changed ? (kind === 'removed' ? '- ' : '+ ') : '  '}
      {side.text}
    </td>
  );
}
