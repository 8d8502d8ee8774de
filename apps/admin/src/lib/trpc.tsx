'use client';

import './zod-jitless';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { createTRPCContext } from '@trpc/tanstack-react-query';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@wallet/api/trpc';
import { useState, type ReactNode } from 'react';

export type { AppRouter };
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

/** The spec's error body (`{code, message, ...}`) and HTTP status a tRPC call failed with. */
export interface ApiFailure {
  status: number | undefined;
  code: string;
  message: string;
  details?: { path: string; message: string }[];
}

export function apiFailure(error: unknown): ApiFailure {
  if (error instanceof TRPCClientError) {
    const data = error.data as { httpStatus?: number; apiError?: { code: string; message: string; details?: ApiFailure['details'] } } | undefined;
    if (data?.apiError) return { status: data.httpStatus, ...data.apiError };
    return { status: data?.httpStatus, code: 'ERROR', message: error.message };
  }
  return { status: undefined, code: 'ERROR', message: error instanceof Error ? error.message : String(error) };
}

function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 2_000,
        // 4xx answers are final; only retry what may be transient.
        retry: (count, error) => {
          const status = apiFailure(error).status;
          return count < 2 && (status === undefined || status >= 500);
        },
        refetchOnWindowFocus: false,
      },
    },
  });
}

export function TrpcProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        httpLink({
          url: '/trpc',
          // Every mutation must carry it (CSRF); harmless on queries.
          headers: () => ({ 'x-csrf-protection': '1' }),
          fetch: (url, init) => fetch(url, { ...(init as RequestInit), credentials: 'same-origin' }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
