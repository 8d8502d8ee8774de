import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { TrpcProviders } from '@/lib/trpc';
import './globals.css';

export const metadata: Metadata = { title: 'Wallet console', description: 'Projects, API keys, wallets, transactions and webhooks' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen font-sans text-sm">
        <TrpcProviders>{children}</TrpcProviders>
      </body>
    </html>
  );
}
