'use client';

import { cx, Mono } from '@/components/ui';
import type { RouterOutputs } from '@/lib/trpc';

type Result = RouterOutputs['policies']['dryRun'];
type RuleTrace = Result['policies'][number]['rules'][number];

const outcomeStyle: Record<RuleTrace['outcome'], string> = {
  matched: 'bg-amber-100 text-amber-900',
  'not-matched': 'bg-slate-100 text-slate-700',
  undecidable: 'bg-rose-100 text-rose-800',
  'not-covered': 'bg-slate-50 text-slate-500',
};

/** The decision, every deciding rule, what the request was read as, and each applying rule's trace. */
export function DryRunResult({ result }: { result: Result }) {
  const allowed = result.decision === 'allow';
  return (
    <section aria-label="Dry run result" data-testid="dry-run-result" data-decision={result.decision} className="space-y-4">
      <div className={cx('rounded-md border px-3 py-2', allowed ? 'border-emerald-200 bg-emerald-50 text-emerald-800' : 'border-rose-200 bg-rose-50 text-rose-800')}>
        <span data-testid="dry-run-decision" className="font-semibold uppercase">
          {result.decision}
        </span>
        {result.reason ? <span className="ml-2">{result.reason}</span> : null}
      </div>

      {result.deniedBy.length > 0 ? (
        <div>
          <h3 className="text-xs font-medium uppercase tracking-wide text-slate-500">Denied by</h3>
          <ul className="mt-1 space-y-1">
            {result.deniedBy.map((d, i) => (
              <li key={i} data-testid="dry-run-denied-by" data-policy-id={d.policyId ?? ''} data-rule-id={d.ruleId ?? ''} className="text-sm">
                {d.policyId ? (
                  <>
                    <Mono>{d.policyId}</Mono> v{d.policyVersion} rule <Mono>{d.ruleId}</Mono>:{' '}
                  </>
                ) : null}
                <span className="text-rose-800">{d.reason}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}

      <div className="text-sm text-slate-700">
        <h3 className="text-xs font-medium uppercase tracking-wide text-slate-500">Read as</h3>
        <p>
          <Mono>{result.request.action}</Mono> on {result.request.network ?? 'no network'} ({result.request.walletType}, key <Mono>{result.request.apiKeyId}</Mono>)
        </p>
        {result.request.legs.map((leg, i) => (
          <p key={i} className="font-mono text-xs">
            leg {i}: to {leg.to ?? '—'} · asset {leg.asset ?? '—'} · amount {leg.amount ?? '—'}
          </p>
        ))}
        {result.request.undecoded ? <p className="text-amber-800">Not decoded: {result.request.undecoded}</p> : null}
      </div>

      <div className="space-y-3">
        <h3 className="text-xs font-medium uppercase tracking-wide text-slate-500">Applying policies</h3>
        {result.policies.length === 0 ? <p className="text-slate-600">No active policy applies to this request.</p> : null}
        {result.policies.map((policy) => (
          <div key={policy.policyId} data-testid="dry-run-policy" data-policy-id={policy.policyId} className="rounded-md border border-slate-200">
            <p className="border-b border-slate-200 bg-slate-50 px-3 py-1.5 text-sm">
              <Mono>{policy.policyId}</Mono> version {policy.policyVersion}
            </p>
            <ul className="divide-y divide-slate-100">
              {policy.rules.map((rule) => (
                <RuleRow key={rule.ruleId} rule={rule} />
              ))}
            </ul>
          </div>
        ))}
      </div>
    </section>
  );
}

const pairs = (record: Record<string, string | null>) =>
  Object.entries(record)
    .map(([name, value]) => `${name} = ${value ?? 'undecidable'}`)
    .join(' · ');

function RuleRow({ rule }: { rule: RuleTrace }) {
  return (
    <li data-testid="dry-run-rule" data-rule-id={rule.ruleId} data-outcome={rule.outcome} className="space-y-1 px-3 py-2 text-sm">
      <p>
        <Mono>{rule.ruleId}</Mono> <span className="text-slate-500">({rule.effect})</span>{' '}
        <span className={cx('rounded px-1.5 py-0.5 text-xs font-medium', outcomeStyle[rule.outcome])}>{rule.outcome}</span>
      </p>
      {rule.facts.map((facts, i) => (
        <p key={`f${i}`} className="font-mono text-xs text-slate-600">
          facts: {pairs(facts) || '—'}
        </p>
      ))}
      {rule.meters.map((meter, i) => (
        <p key={`m${i}`} data-testid="dry-run-meter" className="font-mono text-xs text-slate-600">
          meter {meter.meter} ({meter.asset}, {meter.window}): before {meter.before} → after {meter.after} / limit {meter.limit}
        </p>
      ))}
    </li>
  );
}
