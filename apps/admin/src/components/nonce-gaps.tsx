'use client';

import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { useState } from 'react';
import { useSession } from '@/lib/session';
import { useTRPC, type RouterOutputs } from '@/lib/trpc';
import { Button, ErrorBox, Mono, short } from './ui';

type StrandedChain = RouterOutputs['wallets']['nonceGaps'][number];
type FillOutcome = RouterOutputs['wallets']['fillNonceGaps'];

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const nonces = (list: number[]) => `${list.length === 1 ? 'nonce' : 'nonces'} ${list.join(', ')}`;

function StrandedChainNotice({ stranded }: { stranded: StrandedChain }) {
  const headingId = `stranded-${stranded.chainId}`;
  return (
    <div role="group" aria-labelledby={headingId} data-testid={headingId} className="space-y-1">
      <h2 id={headingId} className="font-semibold">
        Stranded on chain {stranded.chainId}
      </h2>
      <p>
        The chain expects <strong>nonce {stranded.chainNonce}</strong> next, but no transaction of this wallet uses{' '}
        <strong data-testid="stranded-missing">{nonces(stranded.missing)}</strong>. The node holds back the{' '}
        <strong data-testid="stranded-waiting">{count(stranded.waiting, 'transaction', 'transactions')}</strong> waiting from nonce{' '}
        {stranded.lowestUnresolved} on: {stranded.waiting === 1 ? 'it' : 'they'} cannot be mined until the missing{' '}
        {stranded.missing.length === 1 ? 'nonce is' : 'nonces are'} used.
      </p>
    </div>
  );
}

function FillersSent({ outcome }: { outcome: FillOutcome }) {
  if (outcome.filled.length === 0) {
    return (
      <p role="status" className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3 text-slate-700">
        Nothing was sent: the missing nonces had been used meanwhile (by the service&apos;s own repair or a new transaction).
      </p>
    );
  }
  return (
    <section aria-label="Gap fillers sent" className="rounded-md border border-emerald-200 bg-emerald-50 px-4 py-3 text-emerald-900">
      <p className="font-medium">{outcome.filled.length === 1 ? 'Gap filler sent' : `${outcome.filled.length} gap fillers sent`}</p>
      <ul className="mt-1 space-y-0.5">
        {outcome.filled.map((f) => (
          <li key={f.transactionId}>
            <Link className="text-indigo-700 hover:underline" href={`/transactions/${f.transactionId}`}>
              Gap filler at nonce {f.nonce} on chain {f.chainId}
            </Link>{' '}
            <Mono title={f.hash}>{short(f.hash)}</Mono>
          </li>
        ))}
      </ul>
      <p className="mt-1 text-sm">Once it is mined, the waiting transactions follow; their status shows under Transactions below.</p>
    </section>
  );
}

/**
 * The wallet page's banner for an EVM wallet stranded behind a nonce that nothing holds (nothing
 * when it is not), with "Send gap filler" for owners and developers after a second click. The
 * fillers sent stay listed after the banner goes (the filler takes the nonce, so it goes at once).
 */
export function StrandedWalletBanner({ walletId }: { walletId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { canWrite } = useSession();
  const [confirming, setConfirming] = useState(false);
  const gaps = useQuery(trpc.wallets.nonceGaps.queryOptions({ walletId }, { refetchInterval: 15_000 }));
  const fill = useMutation(
    trpc.wallets.fillNonceGaps.mutationOptions({
      onSettled: () => {
        setConfirming(false);
        void queryClient.invalidateQueries({ queryKey: trpc.wallets.nonceGaps.queryKey({ walletId }) });
        void queryClient.invalidateQueries({ queryKey: trpc.transactions.list.pathKey() });
      },
    }),
  );
  if (gaps.error) return <ErrorBox title="Could not check whether this wallet is stranded" error={gaps.error} />;
  const stranded = gaps.data ?? [];
  if (stranded.length === 0 && !fill.data && !fill.error) return null;
  const missing = stranded.flatMap((s) => s.missing);
  return (
    <div className="space-y-3">
      {stranded.length > 0 ? (
        <section aria-label="Stranded wallet" className="space-y-3 rounded-lg border border-amber-300 bg-amber-50 px-4 py-3 text-amber-950">
          {stranded.map((s) => (
            <StrandedChainNotice key={s.chainId} stranded={s} />
          ))}
          <p className="text-sm">
            A <strong>gap filler</strong> is a transfer of zero from the wallet to itself at the missing nonce: it moves no funds and costs only the
            network fee, and once it is mined the waiting transactions follow. The service sends one by itself when the oldest waiting transaction has
            waited a while; {canWrite ? 'the button sends it now.' : 'owners and developers can send it now from this page.'}
          </p>
          {canWrite ? (
            <div className="flex flex-wrap items-center gap-2">
              {confirming ? (
                <>
                  <span className="text-sm">
                    Sign and send {count(missing.length, 'zero-value self-transfer', 'zero-value self-transfers')} at {nonces(missing)}?
                  </span>
                  <Button disabled={fill.isPending} onClick={() => fill.mutate({ walletId })}>
                    {fill.isPending ? 'Sending…' : 'Confirm and send'}
                  </Button>
                  <Button variant="secondary" disabled={fill.isPending} onClick={() => setConfirming(false)}>
                    Not now
                  </Button>
                </>
              ) : (
                <Button onClick={() => setConfirming(true)}>Send gap filler</Button>
              )}
            </div>
          ) : null}
        </section>
      ) : null}
      {fill.error ? <ErrorBox title="The gap filler was not sent" error={fill.error} /> : null}
      {fill.data ? <FillersSent outcome={fill.data} /> : null}
    </div>
  );
}
