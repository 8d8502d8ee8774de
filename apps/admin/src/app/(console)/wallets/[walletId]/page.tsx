'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useParams } from 'next/navigation';
import { StrandedWalletBanner } from '@/components/nonce-gaps';
import { WalletScope } from '@/components/scopes/wallet-scope';
import { TransactionList } from '@/components/transactions';
import { WalletBalances } from '@/components/wallet-balances';
import { WalletCases, WalletPolicies } from '@/components/wallet-support';
import { YieldOperationList, YieldPositions } from '@/components/yield';
import { Badge, Card, DefinitionList, ErrorBox, formatDate, Loading, Mono, PageHeader } from '@/components/ui';
import { useTRPC } from '@/lib/trpc';

export default function WalletPage() {
  const { walletId } = useParams<{ walletId: string }>();
  const trpc = useTRPC();
  const wallet = useQuery(trpc.wallets.get.queryOptions({ walletId }));
  if (wallet.isPending) return <Loading />;
  if (wallet.error) return <ErrorBox title="Wallet not available" error={wallet.error} />;
  const w = wallet.data;
  return (
    <>
      <PageHeader title={`${w.type} wallet`} subtitle={<Mono>{w.id}</Mono>} />
      <div className="space-y-6">
        {w.type === 'EVM' ? <StrandedWalletBanner walletId={w.id} /> : null}
        <Card title="Wallet">
          <DefinitionList
            items={[
              ['Address', <Mono key="a">{w.address}</Mono>],
              ['Public key', <Mono key="p">{w.publicKey}</Mono>],
              ['Type / scheme', `${w.type} / ${w.scheme}`],
              ...(w.cosmosPrefix ? ([['Cosmos prefix', w.cosmosPrefix]] as [string, string][]) : []),
              ['Status', <Badge key="s" value={w.status} />],
              ['User', `${w.userIdentifier} (${w.userIdentifierType})`],
              ['Custody', w.custody],
              ['Custody mode', w.custodyMode],
              ['Claim state', w.claimedAt ? `claimed ${formatDate(w.claimedAt)} by user ${w.claimedByUserId ?? '—'}` : 'not claimed'],
              ['Project', <Mono key="pr">{w.projectId}</Mono>],
              ['Created', formatDate(w.createdAt)],
            ]}
          />
        </Card>
        <Card title="Balances">
          <section aria-label="Balances">
            <WalletBalances walletId={w.id} />
          </section>
        </Card>
        <Card title="Authorization scope">
          <section aria-label="Authorization scope">
            <WalletScope walletId={w.id} />
          </section>
        </Card>
        <Card title="Transactions of this wallet" actions={<Link className="text-sm text-indigo-600 hover:underline" href={`/transactions?wallet=${w.id}`}>Open in the transactions list</Link>}>
          <TransactionList projectId={w.projectId} walletId={w.id} />
        </Card>
        <Card title="Approval cases">
          <section aria-label="Approval cases">
            <WalletCases walletId={w.id} />
          </section>
        </Card>
        <Card title="Policies that apply">
          <section aria-label="Policies">
            <WalletPolicies walletId={w.id} />
          </section>
        </Card>
        {w.type === 'EVM' ? (
          <Card title="Yield">
            <div className="space-y-6">
              <section aria-label="Yield positions" className="space-y-2">
                <h3 className="text-sm font-semibold text-slate-700">Positions per market</h3>
                <YieldPositions walletId={w.id} />
              </section>
              <section aria-label="Yield operations" className="space-y-2">
                <h3 className="text-sm font-semibold text-slate-700">Operations</h3>
                <YieldOperationList projectId={w.projectId} walletId={w.id} />
              </section>
            </div>
          </Card>
        ) : null}
      </div>
    </>
  );
}
