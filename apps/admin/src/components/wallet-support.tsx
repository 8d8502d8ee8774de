'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from '@/lib/trpc';
import { CaseAmount } from './amount';
import { CopyableValue } from './values';
import { Badge, Empty, ErrorBox, formatDate, Loading, Mono, Table, Td } from './ui';

/** The wallet's approval cases (both environments), newest first. */
export function WalletCases({ walletId }: { walletId: string }) {
  const trpc = useTRPC();
  const cases = useQuery(trpc.wallets.approvalCases.queryOptions({ walletId, limit: 20 }));
  if (cases.isPending) return <Loading />;
  if (cases.error) return <ErrorBox title="Cases not available" error={cases.error} />;
  if (cases.data.length === 0) return <Empty title="No approval cases for this wallet" />;
  return (
    <Table head={['Created', 'Status', 'Environment', 'Amount', 'Case']}>
      {cases.data.map((c) => (
        <tr key={c.caseId} data-testid={`wallet-case-${c.caseId}`}>
          <Td className="whitespace-nowrap">{formatDate(c.createdAt)}</Td>
          <Td>
            <Badge value={c.status} />
          </Td>
          <Td>{c.environment}</Td>
          <Td>
            <CaseAmount request={c.request} />
          </Td>
          <Td>
            <CopyableValue value={c.caseId} label="case id" href={`/cases?project=${c.projectId}&env=${c.environment}&case=${c.caseId}`} width="sm" />
          </Td>
        </tr>
      ))}
    </Table>
  );
}

/** The active policies whose selector takes the wallet (networks and API keys narrow them further per request). */
export function WalletPolicies({ walletId }: { walletId: string }) {
  const trpc = useTRPC();
  const policies = useQuery(trpc.wallets.policies.queryOptions({ walletId }));
  if (policies.isPending) return <Loading />;
  if (policies.error) return <ErrorBox title="Policies not available" error={policies.error} />;
  if (policies.data.length === 0) return <Empty title="No active policy selects this wallet" />;
  return (
    <Table head={['Policy', 'Version', 'Environment', 'Networks', 'API keys', 'Effective']}>
      {policies.data.map((p) => (
        <tr key={`${p.environment}-${p.policyId}`} data-testid={`wallet-policy-${p.policyId}`}>
          <Td>
            <Mono>{p.policyId}</Mono>
          </Td>
          <Td>{p.version}</Td>
          <Td>{p.environment}</Td>
          <Td>{p.definition.selector.chainId?.join(', ') ?? 'every network'}</Td>
          <Td>{p.definition.selector.apiKeyId ? `${p.definition.selector.apiKeyId.length} key(s)` : 'every key'}</Td>
          <Td className="whitespace-nowrap">
            {p.effectiveFrom ? formatDate(p.effectiveFrom) : 'always'} – {p.effectiveUntil ? formatDate(p.effectiveUntil) : 'no end'}
          </Td>
        </tr>
      ))}
    </Table>
  );
}
