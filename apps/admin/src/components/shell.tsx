'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import Link from 'next/link';
import { usePathname, useRouter } from 'next/navigation';
import { useEffect, type ReactNode } from 'react';
import { useSession } from '@/lib/session';
import { useTRPC } from '@/lib/trpc';
import { Button, cx, ErrorBox, Loading } from './ui';
import { ProjectPicker, ProjectProvider } from './project';
import { SearchBox } from './search-box';

const nav = [
  { href: '/', label: 'Overview' },
  { href: '/projects', label: 'Projects & API keys' },
  { href: '/wallets', label: 'Wallets' },
  { href: '/transactions', label: 'Transactions' },
  { href: '/yield', label: 'Yield operations' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/policies', label: 'Policies' },
  { href: '/sponsorship', label: 'Sponsorship' },
  { href: '/auto-retry', label: 'Managed retry' },
  { href: '/scopes', label: 'Authorization scopes' },
  { href: '/approval-configurations', label: 'Approval configurations' },
  { href: '/cases', label: 'Reviews & cases' },
  { href: '/request-log', label: 'Request log' },
];

export function ConsoleShell({ children }: { children: ReactNode }) {
  const { me, staff } = useSession();
  const router = useRouter();
  const pathname = usePathname();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const signOut = useMutation(
    trpc.auth.signOut.mutationOptions({
      onSuccess: () => {
        queryClient.clear();
        router.replace('/sign-in');
      },
    }),
  );

  useEffect(() => {
    if (me.isSuccess && me.data === null) router.replace('/sign-in');
  }, [me.isSuccess, me.data, router]);

  if (me.isPending) return <div className="p-8"><Loading label="Checking your session…" /></div>;
  if (me.isError) return <div className="p-8"><ErrorBox title="The console cannot reach the API" error={me.error} /></div>;
  if (!staff) return <div className="p-8"><Loading label="Redirecting to sign-in…" /></div>;

  return (
    <ProjectProvider>
      <div className="flex min-h-screen">
        <aside className="hidden w-60 shrink-0 border-r border-slate-200 bg-white md:block">
          <div className="px-5 py-4">
            <p className="text-base font-semibold">Wallet console</p>
            <p className="text-xs text-slate-500">{staff.partnerName}</p>
          </div>
          <nav className="space-y-0.5 px-2" aria-label="Main">
            {nav.map((item) => {
              const active = item.href === '/' ? pathname === '/' : pathname.startsWith(item.href);
              return (
                <Link
                  key={item.href}
                  href={item.href}
                  className={cx('block rounded-md px-3 py-2', active ? 'bg-indigo-50 font-medium text-indigo-700' : 'text-slate-700 hover:bg-slate-100')}
                >
                  {item.label}
                </Link>
              );
            })}
          </nav>
        </aside>
        <div className="flex min-w-0 flex-1 flex-col">
          <header className="flex flex-wrap items-center justify-between gap-3 border-b border-slate-200 bg-white px-6 py-3">
            <ProjectPicker />
            <SearchBox />
            <div className="flex items-center gap-3">
              <span data-testid="whoami" className="text-slate-600">
                {staff.email} <span className="rounded bg-slate-100 px-1.5 py-0.5 text-xs text-slate-600">{staff.role}</span>
              </span>
              <Button variant="secondary" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
                Sign out
              </Button>
            </div>
          </header>
          <main className="mx-auto w-full max-w-6xl flex-1 px-6 py-6">{children}</main>
        </div>
      </div>
    </ProjectProvider>
  );
}
