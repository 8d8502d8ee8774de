'use client';

import Link from 'next/link';
import { useEffect, useState, type ReactNode } from 'react';
import { splitForEllipsis } from '@/lib/ellipsis';

const cx = (...parts: (string | false | undefined)[]) => parts.filter(Boolean).join(' ');

/** How every page shows a value that is absent (no failure, no binding, no link): the word "none", never "null" or a blank. */
export function None() {
  return <span className="text-slate-400">none</span>;
}

/** The value, or "none" when it is null, undefined or empty. */
export function OrNone({ value }: { value: ReactNode }) {
  return value === null || value === undefined || value === '' ? <None /> : <>{value}</>;
}

type CopyState = 'idle' | 'copied' | 'failed';

/** Copies `value` with the Clipboard API and says whether it did for a moment. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [state, setState] = useState<CopyState>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 1500);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = () => {
    if (!navigator.clipboard) return setState('failed');
    navigator.clipboard.writeText(value).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };
  return (
    <button
      type="button"
      aria-label={`Copy ${label}`}
      title={`Copy ${label}`}
      onClick={copy}
      className="inline-flex h-4 shrink-0 items-center rounded text-slate-400 hover:text-indigo-600 focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500"
    >
      {state === 'idle' ? (
        <svg aria-hidden="true" viewBox="0 0 16 16" className="h-3.5 w-3.5" fill="none" stroke="currentColor" strokeWidth="1.5">
          <rect x="5.5" y="5.5" width="8" height="8" rx="1.5" />
          <path d="M10.5 3.5v-.5a1 1 0 0 0-1-1h-6a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h.5" />
        </svg>
      ) : (
        <span role="status" className={cx('text-xs font-medium', state === 'copied' ? 'text-emerald-700' : 'text-rose-700')}>
          {state === 'copied' ? 'Copied' : 'Not copied'}
        </span>
      )}
    </button>
  );
}

/** The most a value takes in its cell (the rest is cut); `full`: its container's width. */
const widths = { xs: 'max-w-[4.75rem]', sm: 'max-w-[6rem]', md: 'max-w-[9rem]', full: 'max-w-full' } as const;

/**
 * A long value (hash, address, id, route, URL) on one line: cut with an ellipsis in the middle so
 * its end stays readable, the full value in the hover title, and a button that copies it (unless
 * `copy={false}`: a search result's label is not a value to paste). `href` makes the value a link.
 * Null or empty shows "none".
 */
export function CopyableValue({
  value,
  label,
  href,
  width = 'md',
  mono = true,
  tail = 6,
  copy = true,
}: {
  value: string | null | undefined;
  /** What it is, for the copy button's name ("Copy hash"). */
  label: string;
  href?: string;
  width?: keyof typeof widths;
  mono?: boolean;
  /** Characters kept after the ellipsis. */
  tail?: number;
  copy?: boolean;
}) {
  if (!value) return <None />;
  const parts = splitForEllipsis(value, tail);
  const text = (
    <span title={value} className={cx('flex min-w-0', widths[width], mono ? 'font-mono text-xs' : 'text-sm')}>
      <span className="truncate">{parts.head}</span>
      {parts.tail ? <span className="shrink-0">{parts.tail}</span> : null}
    </span>
  );
  return (
    <span className="inline-flex max-w-full items-center gap-0.5 whitespace-nowrap align-middle">
      {href ? (
        // Named by the whole value: its text is split in two (head and tail), which reads as two words.
        <Link href={href} aria-label={value} className="min-w-0 text-indigo-600 hover:underline">
          {text}
        </Link>
      ) : (
        <span className="min-w-0 text-slate-700">{text}</span>
      )}
      {copy ? <CopyButton value={value} label={label} /> : null}
    </span>
  );
}
