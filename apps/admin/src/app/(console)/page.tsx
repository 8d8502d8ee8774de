'use client';

import { PageHeader } from '@/components/ui';
import { useSession } from '@/lib/session';

export default function OverviewPage() {
  const { staff } = useSession();
  return <PageHeader title="Overview" subtitle={`Signed in as ${staff?.email ?? ''}`} />;
}
