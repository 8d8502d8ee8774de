'use client';

import { useQuery } from '@tanstack/react-query';
import { useTRPC } from './trpc';

/** The signed-in staff member (null when signed out) and whether their role may change anything. */
export function useSession() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions(undefined, { staleTime: 30_000 }));
  const staff = me.data ?? null;
  return { me, staff, canWrite: staff !== null && staff.role !== 'support' };
}
