import Link from 'next/link';

/**
 * The console's 404. Next.js's built-in one renders inline style attributes and a <style> without
 * the nonce, which the console's Content-Security-Policy refuses (src/lib/security-headers.ts).
 */
export default function NotFound() {
  return (
    <main className="mx-auto mt-24 max-w-md space-y-3 text-center">
      <h1 className="text-lg font-semibold text-slate-900">Page not found</h1>
      <p className="text-slate-600">There is no console page at this address.</p>
      <Link href="/" className="text-indigo-600 hover:underline">
        Back to the overview
      </Link>
    </main>
  );
}
