'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { Suspense, type FormEvent } from 'react';
import { Input } from './ui';

function SearchField() {
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  const current = pathname === '/search' ? (params.get('q') ?? '') : '';
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const query = String(new FormData(event.currentTarget).get('q') ?? '').trim();
    router.push(`/search?q=${encodeURIComponent(query)}`);
  }
  return (
    <form onSubmit={submit} role="search" aria-label="Console search" className="min-w-[16rem] flex-1 md:max-w-md">
      {/* Keyed by the query shown, so the field follows the results page (back, forward, a new search). */}
      <Input
        key={current}
        type="search"
        name="q"
        aria-label="Search"
        defaultValue={current}
        maxLength={200}
        placeholder="Search: id, hash, address or user…"
      />
    </form>
  );
}

/** The header's search box on every console page: Enter opens `/search?q=…`. */
export function SearchBox() {
  // useSearchParams needs a Suspense boundary on a statically rendered page.
  return (
    <Suspense>
      <SearchField />
    </Suspense>
  );
}
