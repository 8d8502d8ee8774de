'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { useProject, WithProject } from '@/components/project';
import { Card, Empty, ErrorBox, Loading, PageHeader, Select } from '@/components/ui';
import { transactionStatuses } from '@/lib/schemas';
import { countTicks } from '@/lib/ticks';
import { useTRPC, type RouterOutputs } from '@/lib/trpc';

const colors: Record<string, string> = {
  confirmed: '#10b981',
  submitted: '#0ea5e9',
  pending: '#f59e0b',
  reverted: '#f97316',
  failed: '#e11d48',
};

type Row = RouterOutputs['overview']['broadcastsPerDay'][number];

function daysBack(days: number): string[] {
  const out: string[] = [];
  const today = new Date();
  today.setUTCHours(0, 0, 0, 0);
  for (let i = days - 1; i >= 0; i--) out.push(new Date(today.getTime() - i * 86_400_000).toISOString().slice(0, 10));
  return out;
}

/** Stacked bars: one per UTC day, one segment per status. */
function BroadcastsChart({ rows, days }: { rows: Row[]; days: number }) {
  const labels = daysBack(days);
  const byDay = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const day = String(row.day).slice(0, 10);
    const statuses = byDay.get(day) ?? new Map<string, number>();
    statuses.set(row.status, (statuses.get(row.status) ?? 0) + row.count);
    byDay.set(day, statuses);
  }
  const statuses = [...new Set([...transactionStatuses, ...rows.map((r) => r.status)])];
  const totals = labels.map((d) => [...(byDay.get(d)?.values() ?? [])].reduce((a, b) => a + b, 0));
  const ticks = countTicks(Math.max(...totals));
  const max = ticks.at(-1)!;
  const width = 720;
  const height = 220;
  const pad = { left: 32, bottom: 24, top: 8 };
  const bar = (width - pad.left) / labels.length;
  const scale = (height - pad.bottom - pad.top) / max;
  return (
    <figure>
      <svg role="img" aria-label={`Broadcasts per day by status, last ${days} days`} viewBox={`0 0 ${width} ${height}`} className="w-full">
        {ticks.map((tick) => {
          const y = height - pad.bottom - tick * scale;
          return (
            <g key={tick}>
              <line x1={pad.left} x2={width} y1={y} y2={y} stroke="#e2e8f0" />
              <text x={pad.left - 6} y={y + 4} textAnchor="end" fontSize="10" fill="#64748b">
                {tick}
              </text>
            </g>
          );
        })}
        {labels.map((day, i) => {
          let y = height - pad.bottom;
          const counts = byDay.get(day);
          return (
            <g key={day}>
              {statuses.map((status) => {
                const count = counts?.get(status) ?? 0;
                if (!count) return null;
                const h = count * scale;
                y -= h;
                return (
                  <rect key={status} x={pad.left + i * bar + bar * 0.15} y={y} width={bar * 0.7} height={h} fill={colors[status] ?? '#94a3b8'}>
                    <title>{`${day}: ${count} ${status}`}</title>
                  </rect>
                );
              })}
              {i % Math.ceil(labels.length / 7) === 0 ? (
                <text x={pad.left + i * bar + bar / 2} y={height - 8} textAnchor="middle" fontSize="10" fill="#64748b">
                  {day.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <figcaption className="mt-2 flex flex-wrap gap-3 text-xs text-slate-600">
        {statuses.map((s) => (
          <span key={s} className="flex items-center gap-1">
            <span className="inline-block h-2.5 w-2.5 rounded-sm" style={{ background: colors[s] ?? '#94a3b8' }} /> {s}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

function Overview({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const { project } = useProject();
  const [days, setDays] = useState(14);
  const chart = useQuery(trpc.overview.broadcastsPerDay.queryOptions({ projectId, days }, { refetchInterval: 10_000 }));
  const signer = useQuery(trpc.overview.signer.queryOptions(undefined, { refetchInterval: 10_000 }));
  const total = chart.data?.reduce((a, r) => a + r.count, 0) ?? 0;
  const byStatus = new Map<string, number>();
  for (const r of chart.data ?? []) byStatus.set(r.status, (byStatus.get(r.status) ?? 0) + r.count);
  return (
    <div className="space-y-6">
      <SignerStatus reachable={signer.data?.reachable} latencyMs={signer.data?.latencyMs ?? null} failed={signer.isError} />
      <CustodyModes projectId={projectId} />
      <div className="grid grid-cols-2 gap-4 md:grid-cols-4">
        <Stat label="Wallets" value={project?.walletCount} href="/wallets" />
        <Stat label="API keys" value={project?.apiKeyCount} href="/projects" />
        <Stat label={`Broadcasts (${days} d)`} value={chart.data ? total : undefined} href="/transactions" />
        <Stat label="Failed or reverted" value={chart.data ? (byStatus.get('failed') ?? 0) + (byStatus.get('reverted') ?? 0) : undefined} href="/transactions" />
      </div>
      <Card
        title="Broadcasts per day by status"
        actions={
          <Select aria-label="Days" value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {[7, 14, 30, 90].map((d) => (
              <option key={d} value={d}>
                Last {d} days
              </option>
            ))}
          </Select>
        }
      >
        {chart.isPending ? (
          <Loading />
        ) : chart.error ? (
          <ErrorBox error={chart.error} />
        ) : total === 0 ? (
          <Empty title="No broadcasts in this period">Transfers and broadcast signatures of this project appear here, by day and status.</Empty>
        ) : (
          <BroadcastsChart rows={chart.data} days={days} />
        )}
      </Card>
    </div>
  );
}

/** The signer process holds every key: while it does not answer, nothing can be signed. */
function SignerStatus({ reachable, latencyMs, failed }: { reachable: boolean | undefined; latencyMs: number | null; failed: boolean }) {
  const state = failed || reachable === false ? 'unreachable' : reachable ? 'reachable' : undefined;
  return (
    <p
      data-testid="signer-status"
      role="status"
      className={`rounded-lg border px-4 py-2 text-sm ${state === 'unreachable' ? 'border-rose-300 bg-rose-50 text-rose-800' : 'border-slate-200 bg-white text-slate-700'}`}
    >
      Signer: {state ?? '…'}
      {state === 'reachable' && latencyMs !== null ? ` (${latencyMs.toFixed(1)} ms)` : ''}
      {state === 'unreachable' ? ' — signing answers 503 SIGNER_UNAVAILABLE until it is back' : ''}
    </p>
  );
}

/** How the project's new EVM and COSMOS wallets hold their keys, per environment; operators set it with the custody CLI. */
function CustodyModes({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const modes = useQuery(trpc.overview.custodyModes.queryOptions({ projectId }));
  return (
    <Card title="Custody of new EVM and COSMOS wallets">
      {modes.isPending ? (
        <Loading />
      ) : modes.error ? (
        <ErrorBox error={modes.error} />
      ) : (
        <>
          <dl className="grid grid-cols-1 gap-3 text-sm md:grid-cols-2">
            {modes.data.map((m) => (
              <div key={m.environment} data-testid={`custody-mode-${m.environment}`}>
                <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">{m.environment}</dt>
                <dd className="mt-1">
                  <span className="font-semibold">{m.secp256k1Mode}</span>
                  {m.secp256k1Mode === 'threshold' ? ' — 2-of-2 threshold ECDSA (DKLs23) between the API and the signer; the key never exists whole' : ' — the key is joined only inside the signer process, for each signature'}
                  {m.review ? <p className="mt-1 text-amber-800">{m.review}</p> : null}
                </dd>
              </div>
            ))}
          </dl>
          <p className="mt-3 text-xs text-slate-500">
            Existing wallets keep the mode they were created with. Operators change it with <code>npm run custody -- mode</code>.
          </p>
        </>
      )}
    </Card>
  );
}

function Stat({ label, value, href }: { label: string; value: number | undefined; href: string }) {
  return (
    <Link href={href} className="rounded-lg border border-slate-200 bg-white px-4 py-3 shadow-sm hover:border-indigo-300">
      <p className="text-xs font-medium uppercase tracking-wide text-slate-500">{label}</p>
      <p className="mt-1 text-2xl font-semibold">{value ?? '…'}</p>
    </Link>
  );
}

export default function OverviewPage() {
  const { project } = useProject();
  return (
    <>
      <PageHeader title="Overview" subtitle={project ? `Project ${project.name}` : undefined} />
      <WithProject>{(projectId) => <Overview projectId={projectId} />}</WithProject>
    </>
  );
}
