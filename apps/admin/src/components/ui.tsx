'use client';

import { cloneElement, useId, type ButtonHTMLAttributes, type InputHTMLAttributes, type ReactElement, type ReactNode, type SelectHTMLAttributes } from 'react';
import { apiFailure } from '@/lib/trpc';
import { None } from './values';

export function cx(...parts: (string | false | null | undefined)[]) {
  return parts.filter(Boolean).join(' ');
}

export function Button({ variant = 'primary', className, ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: 'primary' | 'secondary' | 'danger' }) {
  return (
    <button
      type="button"
      {...props}
      className={cx(
        'inline-flex items-center gap-1 rounded-md px-3 py-1.5 text-sm font-medium shadow-sm transition disabled:cursor-not-allowed disabled:opacity-50',
        variant === 'primary' && 'bg-indigo-600 text-white hover:bg-indigo-500',
        variant === 'secondary' && 'border border-slate-300 bg-white text-slate-800 hover:bg-slate-50',
        variant === 'danger' && 'bg-rose-600 text-white hover:bg-rose-500',
        className,
      )}
    />
  );
}

export function Input({ className, ...props }: InputHTMLAttributes<HTMLInputElement>) {
  return <input {...props} className={cx('w-full rounded-md border border-slate-300 bg-white px-2.5 py-1.5 text-sm focus:border-indigo-500 focus:outline-none', className)} />;
}

export function Select({ className, ...props }: SelectHTMLAttributes<HTMLSelectElement>) {
  return <select {...props} className={cx('rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm focus:border-indigo-500 focus:outline-none', className)} />;
}

export function Field({ label, error, children, hint }: { label: string; error?: string | undefined; hint?: string; children: ReactElement<{ id?: string }> }) {
  const id = useId();
  return (
    <div className="space-y-1">
      <label htmlFor={id} className="block text-xs font-medium text-slate-600">
        {label}
      </label>
      {cloneElement(children, { id })}
      {hint && !error ? <span className="block text-xs text-slate-500">{hint}</span> : null}
      {error ? (
        <span role="alert" className="block text-xs text-rose-600">
          {error}
        </span>
      ) : null}
    </div>
  );
}

export function Card({ title, actions, children, className }: { title?: ReactNode; actions?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <section className={cx('rounded-lg border border-slate-200 bg-white shadow-sm', className)}>
      {title || actions ? (
        <header className="flex items-center justify-between gap-2 border-b border-slate-100 px-4 py-3">
          <h2 className="font-semibold text-slate-800">{title}</h2>
          <div className="flex items-center gap-2">{actions}</div>
        </header>
      ) : null}
      <div className="p-4">{children}</div>
    </section>
  );
}

export function PageHeader({ title, subtitle, actions }: { title: ReactNode; subtitle?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-6 flex flex-wrap items-end justify-between gap-3">
      <div>
        <h1 className="text-xl font-semibold text-slate-900">{title}</h1>
        {subtitle ? <p className="mt-1 text-slate-500">{subtitle}</p> : null}
      </div>
      <div className="flex items-center gap-2">{actions}</div>
    </div>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div role="status" aria-live="polite" className="flex items-center gap-2 py-6 text-slate-500">
      <span className="h-4 w-4 animate-spin rounded-full border-2 border-slate-300 border-t-indigo-600" />
      {label}
    </div>
  );
}

export function ErrorBox({ error, title = 'Something went wrong' }: { error: unknown; title?: string }) {
  const failure = apiFailure(error);
  return (
    <div role="alert" className="rounded-md border border-rose-200 bg-rose-50 px-4 py-3 text-rose-800">
      <p className="font-medium">{title}</p>
      <p className="mt-1">
        {failure.message}
        {failure.status ? <span className="ml-2 font-mono text-xs text-rose-600">({failure.status} {failure.code})</span> : null}
      </p>
      {failure.details?.length ? (
        <ul className="mt-1 list-inside list-disc text-xs">
          {failure.details.map((d) => (
            <li key={`${d.path}:${d.message}`}>
              {d.path ? <code>{d.path}</code> : null} {d.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="rounded-md border border-dashed border-slate-300 px-4 py-8 text-center">
      <p className="font-medium text-slate-700">{title}</p>
      {children ? <div className="mt-2 text-slate-500">{children}</div> : null}
    </div>
  );
}

const statusColors: Record<string, string> = {
  confirmed: 'bg-emerald-100 text-emerald-800',
  ready: 'bg-emerald-100 text-emerald-800',
  active: 'bg-emerald-100 text-emerald-800',
  delivered: 'bg-emerald-100 text-emerald-800',
  enabled: 'bg-emerald-100 text-emerald-800',
  approved: 'bg-emerald-100 text-emerald-800',
  included: 'bg-emerald-100 text-emerald-800',
  lost: 'bg-slate-200 text-slate-700',
  rejected: 'bg-rose-100 text-rose-800',
  submitted: 'bg-sky-100 text-sky-800',
  pending: 'bg-amber-100 text-amber-800',
  paused: 'bg-amber-100 text-amber-800',
  creating: 'bg-amber-100 text-amber-800',
  reverted: 'bg-orange-100 text-orange-800',
  failed: 'bg-rose-100 text-rose-800',
  revoked: 'bg-slate-200 text-slate-700',
  disabled: 'bg-slate-200 text-slate-700',
};

export function Badge({ value }: { value: string | null | undefined }) {
  if (!value) return <None />;
  return <span className={cx('inline-block rounded-full px-2 py-0.5 text-xs font-medium', statusColors[value] ?? 'bg-slate-100 text-slate-700')}>{value}</span>;
}

export function Mono({ children, title }: { children: ReactNode; title?: string }) {
  return (
    <code title={title} className="break-all font-mono text-xs text-slate-700">
      {children}
    </code>
  );
}

const stickyCell = 'sticky right-0 z-10 bg-white shadow-[-6px_0_6px_-6px_rgba(15,23,42,0.25)]';

/**
 * A table whose rows stay one line: cells do not wrap (long values go in a CopyableValue, cut with
 * an ellipsis), and with `stickyLast` the last column (the row's actions, its cells a `<Td sticky>`)
 * stays in view at the right edge when the table is wider than its container and scrolls.
 */
export function Table({ head, children, stickyLast = false }: { head: ReactNode[]; children: ReactNode; stickyLast?: boolean }) {
  return (
    <div className="overflow-x-auto">
      <table className="min-w-full text-left">
        <thead className="border-b border-slate-200 text-xs uppercase tracking-wide text-slate-500">
          <tr>
            {head.map((h, i) => (
              <th key={i} className={cx('whitespace-nowrap px-2 py-2 font-medium', stickyLast && i === head.length - 1 && stickyCell)}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </div>
  );
}

/** The "Load more" button under a paged list (hidden on the last page). */
export function LoadMore({ list }: { list: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> } }) {
  if (!list.hasNextPage) return null;
  return (
    <Button variant="secondary" onClick={() => void list.fetchNextPage()} disabled={list.isFetchingNextPage}>
      {list.isFetchingNextPage ? 'Loading…' : 'Load more'}
    </Button>
  );
}

/** A table cell on one line; `sticky` for the cells of a `<Table stickyLast>`'s last column. */
export function Td({ children, className, sticky = false }: { children?: ReactNode; className?: string; sticky?: boolean }) {
  return <td className={cx('whitespace-nowrap px-2 py-2 align-middle', sticky && stickyCell, className)}>{children}</td>;
}

/** A secret shown once: readable, copyable, and gone when dismissed. */
export function SecretOnce({ label, secret, onDone }: { label: string; secret: string; onDone: () => void }) {
  return (
    <div role="dialog" aria-label={label} className="rounded-md border border-amber-300 bg-amber-50 px-4 py-3">
      <p className="font-medium text-amber-900">{label}</p>
      <p className="mt-1 text-xs text-amber-800">Copy it now: it is shown only once and cannot be retrieved later.</p>
      <div className="mt-2 flex items-center gap-2">
        <code data-testid="secret-once" className="flex-1 break-all rounded bg-white px-2 py-1 font-mono text-xs">
          {secret}
        </code>
        <Button variant="secondary" onClick={() => void navigator.clipboard?.writeText(secret)}>
          Copy
        </Button>
        <Button variant="secondary" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}

export function DefinitionList({ items }: { items: [string, ReactNode][] }) {
  return (
    <dl className="grid grid-cols-1 gap-x-6 gap-y-2 sm:grid-cols-[12rem_1fr]">
      {items.map(([term, value]) => (
        <div key={term} className="contents">
          <dt className="text-xs font-medium uppercase tracking-wide text-slate-500 sm:py-0.5">{term}</dt>
          <dd className="min-w-0 break-words">{value === null || value === undefined || value === '' ? <None /> : value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function formatDate(value: string | Date | null | undefined) {
  if (!value) return 'none';
  const date = typeof value === 'string' ? new Date(value) : value;
  return Number.isNaN(date.getTime()) ? String(value) : date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function short(value: string | null | undefined, head = 10, tail = 6) {
  if (!value) return 'none';
  return value.length > head + tail + 1 ? `${value.slice(0, head)}…${value.slice(-tail)}` : value;
}
