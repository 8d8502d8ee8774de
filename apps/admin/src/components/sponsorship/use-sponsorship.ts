'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useTRPC, type RouterInputs } from '@/lib/trpc';

export type SponsorshipLocation = { projectId: string; environment: 'development' | 'production' };

type ChangeInput = RouterInputs['sponsorship']['change'];

/** One kind of change (the switch, pause/resume, the limits form): its own pending state and error; the page reloads on success. */
export function useSponsorshipChange(location: SponsorshipLocation) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const mutation = useMutation(
    trpc.sponsorship.change.mutationOptions({ onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.sponsorship.get.queryKey(location) }) }),
  );
  return {
    isPending: mutation.isPending,
    error: mutation.error,
    mutate: (change: Omit<ChangeInput, 'projectId' | 'environment'>) => mutation.mutate({ ...location, ...change }),
  };
}

export type SponsorshipChange = ReturnType<typeof useSponsorshipChange>;
