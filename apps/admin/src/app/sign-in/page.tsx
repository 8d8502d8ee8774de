'use client';

import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { Button, ErrorBox, Field, Input } from '@/components/ui';
import { fieldErrors } from '@/lib/forms';
import { signInInput } from '@/lib/schemas';
import { useTRPC } from '@/lib/trpc';

export default function SignInPage() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [errors, setErrors] = useState<Record<string, string>>({});
  const signIn = useMutation(
    trpc.auth.signIn.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries();
        router.replace('/');
      },
    }),
  );

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const parsed = signInInput.safeParse({ email: String(form.get('email') ?? ''), password: String(form.get('password') ?? '') });
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    signIn.mutate(parsed.data);
  }

  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <form onSubmit={submit} noValidate className="w-full max-w-sm space-y-4 rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <div>
          <h1 className="text-lg font-semibold">Wallet console</h1>
          <p className="text-slate-500">Sign in with your staff account.</p>
        </div>
        <Field label="Email" error={errors.email}>
          <Input name="email" type="email" autoComplete="username" required />
        </Field>
        <Field label="Password" error={errors.password}>
          <Input name="password" type="password" autoComplete="current-password" required />
        </Field>
        {signIn.error ? <ErrorBox title="Sign-in failed" error={signIn.error} /> : null}
        <Button type="submit" className="w-full justify-center" disabled={signIn.isPending}>
          {signIn.isPending ? 'Signing in…' : 'Sign in'}
        </Button>
        <p className="text-xs text-slate-500">
          Local mode: <code>npm start</code> prints the first owner&apos;s credentials once, as <code>{'{"consoleOwner":…}'}</code>.
        </p>
      </form>
    </main>
  );
}
