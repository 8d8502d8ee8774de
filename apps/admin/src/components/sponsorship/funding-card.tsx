'use client';

import type { ReactNode } from 'react';
import { Card, DefinitionList, Mono } from '@/components/ui';
import { formatEth } from '@/lib/sponsorship';
import type { RouterOutputs } from '@/lib/trpc';

/** One sponsorship chain's funding as the service read it from the chain. */
export type SponsorFundingView = RouterOutputs['sponsorship']['funding']['chains'][number];

const amount = (wei: string, key: string) => (
  <span key={key}>
    {formatEth(wei)} <Mono>{wei} wei</Mono>
  </span>
);

function fundingItems(chain: Extract<SponsorFundingView, { status: 'ok' }>): [string, ReactNode][] {
  const items: [string, ReactNode][] = [
    ['Paymaster deposit', amount(chain.paymasterDepositWei, 'deposit')],
    ['Relayer balance', chain.relayerBalanceWei === null ? 'paid by the bundler' : amount(chain.relayerBalanceWei, 'relayer')],
    ['Paymaster', <Mono key="paymaster">{chain.paymaster}</Mono>],
  ];
  if (chain.relayerAddress) items.push(['Relayer', <Mono key="relayer-address">{chain.relayerAddress}</Mono>]);
  return items;
}

/** A low amount: the warning names what to fund, the address and the threshold. */
function Low({ what, threshold, fund }: { what: string; threshold: string; fund: string }) {
  return (
    <p role="alert" className="rounded border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900">
      {what} is below {formatEth(threshold)}: fund <Mono>{fund}</Mono> before sponsored transfers stop.
    </p>
  );
}

/**
 * The balances that pay for sponsorship, per chain (deployment-wide: every project's sponsored
 * transfers on a chain draw on the same paymaster deposit and relayer).
 */
export function SponsorFunding({ funding }: { funding: SponsorFundingView[] }) {
  return (
    <Card title="Paymaster deposit and relayer balance">
      <section aria-label="Paymaster deposit and relayer balance" className="space-y-4">
        {funding.map((chain) => (
          <div key={chain.chainId} className="space-y-2">
            <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Chain {chain.chainId}</p>
            {chain.status === 'unavailable' ? (
              <p role="alert" className="text-sm text-red-700">
                Not readable now: {chain.reason}
              </p>
            ) : (
              <>
                <DefinitionList items={fundingItems(chain)} />
                {chain.lowDeposit ? <Low what="The paymaster deposit" threshold={chain.minDepositWei} fund={`the paymaster ${chain.paymaster} (EntryPoint depositTo)`} /> : null}
                {chain.lowRelayerBalance ? <Low what="The relayer balance" threshold={chain.minRelayerBalanceWei} fund={`the relayer ${chain.relayerAddress}`} /> : null}
              </>
            )}
          </div>
        ))}
      </section>
    </Card>
  );
}
