'use client';

import { Card, DefinitionList, Mono } from '@/components/ui';
import { formatEth } from '@/lib/sponsorship';

/** The chain balances that pay for sponsorship, as read from the chain. */
export interface SponsorFundingView {
  chainId: string;
  /** The paymaster's deposit at the EntryPoint, which refunds the relayer's gas. */
  paymasterDepositWei: string;
  /** The relayer's own balance, which pays `handleOps` up front. */
  relayerBalanceWei: string;
}

/** Shown only with balances read from the chain: the page renders nothing in their place otherwise. */
export function SponsorFunding({ funding }: { funding: SponsorFundingView[] }) {
  return (
    <Card title="Paymaster deposit and relayer balance">
      <section aria-label="Paymaster deposit and relayer balance" className="space-y-4">
        {funding.map((chain) => (
          <div key={chain.chainId} className="space-y-2">
            <p className="text-xs font-medium uppercase tracking-wide text-slate-500">Chain {chain.chainId}</p>
            <DefinitionList
              items={[
                ['Paymaster deposit', <span key="deposit">{formatEth(chain.paymasterDepositWei)} <Mono>{chain.paymasterDepositWei} wei</Mono></span>],
                ['Relayer balance', <span key="relayer">{formatEth(chain.relayerBalanceWei)} <Mono>{chain.relayerBalanceWei} wei</Mono></span>],
              ]}
            />
          </div>
        ))}
      </section>
    </Card>
  );
}
