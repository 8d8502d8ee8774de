'use client';

import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Button } from '@/components/ui';
import { apiFailure, useTRPC } from '@/lib/trpc';

/** Saves the document's JSON Schema (`policies.schema`), for editors that validate as you type. */
export function SchemaDownload() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [failure, setFailure] = useState<string | null>(null);
  async function download() {
    setFailure(null);
    try {
      const schema = await queryClient.fetchQuery(trpc.policies.schema.queryOptions(undefined, { staleTime: Infinity }));
      const url = URL.createObjectURL(new Blob([JSON.stringify(schema, null, 2)], { type: 'application/schema+json' }));
      const link = Object.assign(document.createElement('a'), { href: url, download: 'permissions.policy.v1.schema.json' });
      link.click();
      URL.revokeObjectURL(url);
    } catch (error) {
      setFailure(apiFailure(error).message);
    }
  }
  return (
    <>
      <Button variant="secondary" onClick={() => void download()}>
        JSON Schema
      </Button>
      {failure ? <span role="alert" className="text-xs text-rose-600">{failure}</span> : null}
    </>
  );
}
