'use client';

import { useCallback, useEffect, useState } from 'react';

/** Where a policy lives: the console's current project and the environment chosen on the page. */
export interface PolicyLocation {
  projectId: string;
  environment: 'development' | 'production';
}

const storageKey = ({ projectId, environment }: PolicyLocation) => `wallet-console.policy-draft:${projectId}:${environment}`;

/**
 * The draft policy of a project and environment: JSON text that lives in this browser only
 * (localStorage, so a reload keeps it) until it is activated. Nothing is sent to the server to
 * store before activation; validation reads it and stores nothing.
 */
export function usePolicyDraft(location: PolicyLocation) {
  const key = storageKey(location);
  const [draft, setDraftState] = useState('');
  useEffect(() => {
    setDraftState(window.localStorage.getItem(key) ?? '');
  }, [key]);
  const setDraft = useCallback(
    (text: string) => {
      setDraftState(text);
      if (text === '') window.localStorage.removeItem(key);
      else window.localStorage.setItem(key, text);
    },
    [key],
  );
  return { draft, setDraft };
}

/** `value`, once it has stayed the same for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
