'use client';

import { useState } from 'react';
import { CaseDetail } from '@/components/cases/case-detail';
import { CaseList } from '@/components/cases/case-list';
import { PartnerReviewQueue } from '@/components/cases/partner-reviews';
import { EnvironmentPicker, type ConsoleEnvironment } from '@/components/environment-picker';
import { WithProject } from '@/components/project';
import type { ScopeLocation } from '@/components/scopes/shared';
import { Card, PageHeader } from '@/components/ui';

function Cases({ location }: { location: ScopeLocation }) {
  const [caseId, setCaseId] = useState<string | null>(null);
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

export default function CasesPage() {
  const [environment, setEnvironment] = useState<ConsoleEnvironment>('development');
  return (
    <>
      <PageHeader
        title="Reviews & cases"
        subtitle="Partner reviews waiting for the app's approval, and the conditional approval cases of the environment, newest first: who approved each stage and when, and the request each case gates."
        actions={<EnvironmentPicker value={environment} onChange={setEnvironment} />}
      />
      <WithProject>{(projectId) => <Cases key={`${projectId}:${environment}`} location={{ projectId, environment }} />}</WithProject>
    </>
  );
}
