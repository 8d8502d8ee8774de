'use client';

import { useSearchParams } from 'next/navigation';
import { Suspense, useEffect, useRef, useState } from 'react';
import { CaseDetail } from '@/components/cases/case-detail';
import { CaseList } from '@/components/cases/case-list';
import { PartnerReviewQueue } from '@/components/cases/partner-reviews';
import { EnvironmentPicker, type ConsoleEnvironment } from '@/components/environment-picker';
import { useProject, WithProject } from '@/components/project';
import type { ScopeLocation } from '@/components/scopes/shared';
import { Card, PageHeader } from '@/components/ui';

function Cases({ location, initialCaseId }: { location: ScopeLocation; initialCaseId: string | null }) {
  const [caseId, setCaseId] = useState<string | null>(initialCaseId);
  return (
    <div className="space-y-6">
      {/* Partner reviews: the app's own approval of paused requests (REST /v1/permissions-v2/reviews); owners decide. */}
      <section aria-label="Partner reviews" data-testid="partner-reviews">
        <Card title="Partner reviews">
          <PartnerReviewQueue location={location} />
        </Card>
      </section>
      <Card title="Approval cases">
        <CaseList location={location} selected={caseId} onSelect={setCaseId} />
      </Card>
      {caseId ? (
        <section aria-label="Case detail">
          <CaseDetail key={caseId} location={location} caseId={caseId} onClose={() => setCaseId(null)} />
        </section>
      ) : null}
    </div>
  );
}

const isEnvironment = (value: string | null): value is ConsoleEnvironment => value === 'development' || value === 'production';

/**
 * `/cases?project=P&env=E&case=C` opens case C of project P's environment E (the link a
 * transaction record shows for the case it consumed); without them, the current project's
 * development cases.
 */
function CasesView() {
  const params = useSearchParams();
  const linked = { project: params.get('project'), env: params.get('env'), caseId: params.get('case') };
  const { projectId, setProjectId } = useProject();
  const [environment, setEnvironment] = useState<ConsoleEnvironment>(isEnvironment(linked.env) ? linked.env : 'development');
  // The link's project, once: picking another project afterwards is the user's choice.
  const applied = useRef(false);
  useEffect(() => {
    if (applied.current || !linked.project) return;
    applied.current = true;
    if (linked.project !== projectId) setProjectId(linked.project);
  }, [linked.project, projectId, setProjectId]);
  return (
    <>
      <PageHeader
        title="Reviews & cases"
        subtitle="Partner reviews waiting for the app's approval, and the conditional approval cases of the environment, newest first: who approved each stage and when, and the request each case gates."
        actions={<EnvironmentPicker value={environment} onChange={setEnvironment} />}
      />
      <WithProject>
        {(current) => (
          <Cases
            key={`${current}:${environment}`}
            location={{ projectId: current, environment }}
            initialCaseId={linked.caseId && (!linked.project || linked.project === current) && (!linked.env || linked.env === environment) ? linked.caseId : null}
          />
        )}
      </WithProject>
    </>
  );
}

export default function CasesPage() {
  // useSearchParams needs a Suspense boundary on a statically rendered page.
  return (
    <Suspense>
      <CasesView />
    </Suspense>
  );
}
