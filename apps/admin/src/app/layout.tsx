import type { Metadata } from 'next';
import { connection } from 'next/server';
import type { ReactNode } from 'react';
import { TrpcProviders } from '@/lib/trpc';
import './globals.css';

export const metadata: Metadata = { title: 'Wallet console', description: 'Projects, API keys, wallets, transactions and webhooks' };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request: Next.js puts the request's CSP nonce (src/proxy.ts) on the
  // scripts it renders, and a page prerendered at build time would carry none.
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen font-sans text-sm">
        <TrpcProviders>{children}</TrpcProviders>
      </body>
    </html>
  );
}
