import { testDatabaseKinds } from '@wallet/db';
import { LOCAL_OWNER_EMAIL } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../cli/commands.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { staffClient, trpcFailure } from '../testing/staff-client.ts';
import { CSRF_HEADER } from './context.ts';

describe.each(testDatabaseKinds)('console sign-in over tRPC on %s', (kind) => {
  let app: TestApp;
  const passwords: string[] = [];
  const tokens: string[] = [];

  beforeAll(async () => {
    app = await startTestApp(kind);
  });
  afterAll(async () => {
    const logs = app.logLines.join('');
    for (const secret of [...passwords, ...tokens]) expect(logs).not.toContain(secret);
    await app.close();
  });

  const newStaff = async (role: 'owner' | 'developer' | 'support' = 'owner') => {
    const created = await app.services.staff.createAccount({
      partner: `partner-${Math.random().toString(36).slice(2)}`,
      email: `staff-${Math.random().toString(36).slice(2)}@example.com`,
      role,
    });
    passwords.push(created.password!);
    return created as typeof created & { password: string };
  };

  it('signs in with an httpOnly, SameSite=Lax session cookie and never returns the token in the body', async () => {
    const staff = await newStaff();
    const session = staffClient(app.baseUrl);
    const result = await session.signIn(staff.email.toUpperCase(), staff.password);
    expect(result.staff).toEqual({ staffId: staff.staffId, partnerId: staff.partnerId, partnerName: staff.partnerName, email: staff.email, role: 'owner' });
    const [setCookie] = session.state.setCookies;
    expect(setCookie).toMatch(/^wallet_session=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Secure; Expires=/);
    const token = setCookie!.split(';')[0]!.split('=')[1]!;
    tokens.push(token);
    expect(JSON.stringify(result)).not.toContain(token);
    // Only the token's hash is stored.
    const rows = await app.database.prisma.staffSession.findMany({ where: { staffId: staff.staffId } });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.tokenHash).not.toContain(token);
    expect(await session.client.auth.me.query()).toMatchObject({ email: staff.email, role: 'owner' });
  });

  it('answers a wrong password and an unknown email with the same 401', async () => {
    const staff = await newStaff();
    const wrongPassword = await trpcFailure(staffClient(app.baseUrl).signIn(staff.email, `${staff.password}x`));
    const unknownEmail = await trpcFailure(staffClient(app.baseUrl).signIn('nobody@example.com', staff.password));
    expect(wrongPassword).toEqual({ status: 401, body: { code: 'UNAUTHORIZED', message: 'Invalid email or password' } });
    expect(unknownEmail).toEqual(wrongPassword);
  });

  it('validates input with the spec error body', async () => {
    const failure = await trpcFailure(staffClient(app.baseUrl).signIn('not-an-email', 'x'));
    expect(failure.status).toBe(400);
    expect(failure.body).toMatchObject({ code: 'INVALID_REQUEST', details: [{ path: 'email' }] });
  });

  it('refuses mutations without the CSRF header', async () => {
    const staff = await newStaff();
    const failure = await trpcFailure(staffClient(app.baseUrl, { csrfHeader: false }).signIn(staff.email, staff.password));
    expect(failure).toEqual({ status: 403, body: { code: 'FORBIDDEN', message: 'Missing x-csrf-protection: 1 header' } });
    expect(await app.database.prisma.staffSession.count({ where: { staffId: staff.staffId } })).toBe(0);
  });

  it('signs out, and a revoked session stops working at once', async () => {
    const staff = await newStaff();
    const first = staffClient(app.baseUrl);
    await first.signIn(staff.email, staff.password);
    const stolenCookie = first.state.cookie;
    await first.client.auth.signOut.mutate();
    expect(first.state.cookie).toBeUndefined();
    const replay = staffClient(app.baseUrl);
    replay.state.cookie = stolenCookie;
    expect(await replay.client.auth.me.query()).toBeNull();
    expect(await trpcFailure(replay.client.auth.signOutEverywhere.mutate())).toEqual({ status: 401, body: { code: 'UNAUTHORIZED', message: 'Sign in first' } });

    const a = staffClient(app.baseUrl);
    const b = staffClient(app.baseUrl);
    await a.signIn(staff.email, staff.password);
    await b.signIn(staff.email, staff.password);
    expect(await a.client.auth.signOutEverywhere.mutate()).toEqual({ revoked: 2 });
    expect(await b.client.auth.me.query()).toBeNull();
  });

  it('signs out idempotently: without a session, with an unknown one or one already ended, 200 and nothing changes', async () => {
    const staff = await newStaff();
    const other = staffClient(app.baseUrl);
    await other.signIn(staff.email, staff.password);
    const ended = staffClient(app.baseUrl);
    await ended.signIn(staff.email, staff.password);
    const endedCookie = ended.state.cookie!;
    await ended.client.auth.signOut.mutate();
    const sessions = () => app.database.prisma.staffSession.findMany({ orderBy: { id: 'asc' } });
    const before = await sessions();

    for (const cookie of [undefined, 'wallet_session=unknown-token', endedCookie]) {
      const response = await fetch(`${app.baseUrl}/trpc/auth.signOut`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [CSRF_HEADER]: '1', ...(cookie ? { cookie } : {}) },
      });
      expect(response.status, cookie).toBe(200);
      expect(await response.json()).toEqual({ result: { data: { signedOut: true } } });
      expect(response.headers.getSetCookie()).toEqual([expect.stringMatching(/^wallet_session=; Path=\/; .*Max-Age=0$/)]);
    }
    expect(await sessions()).toEqual(before);
    expect(await other.client.auth.me.query()).toMatchObject({ email: staff.email });
  });

  it('expires sessions and refuses disabled accounts', async () => {
    const staff = await newStaff('support');
    const session = staffClient(app.baseUrl);
    await session.signIn(staff.email, staff.password);
    await app.database.prisma.staffSession.updateMany({ where: { staffId: staff.staffId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect(await session.client.auth.me.query()).toBeNull();
    await session.signIn(staff.email, staff.password);
    await app.database.prisma.staffAccount.update({ where: { id: staff.staffId }, data: { disabledAt: new Date() } });
    expect(await session.client.auth.me.query()).toBeNull();
    expect((await trpcFailure(session.signIn(staff.email, staff.password))).status).toBe(401);
  });

  it('creates the local owner only while no staff account exists', async () => {
    const fresh = await startTestApp(kind);
    try {
      const owner = await fresh.services.staff.ensureLocalOwner();
      expect(owner).toMatchObject({ email: LOCAL_OWNER_EMAIL, role: 'owner', partnerName: 'local' });
      passwords.push(owner!.password);
      expect(await fresh.services.staff.ensureLocalOwner()).toBeNull();
      const session = staffClient(fresh.baseUrl);
      await session.signIn(LOCAL_OWNER_EMAIL, owner!.password);
      expect(await session.client.auth.me.query()).toMatchObject({ role: 'owner' });
    } finally {
      await fresh.close();
    }
  });

  it('the staff CLI commands create an account (password shown once) and revoke its sessions', async () => {
    const created = (await runCommand(app.services, 'staff.create', { partner: 'cli-partner', email: `cli-${Math.random()}@example.com`, role: 'developer' })) as {
      staffId: string;
      email: string;
      password: string;
      role: string;
    };
    passwords.push(created.password);
    expect(created).toMatchObject({ role: 'developer', password: expect.stringMatching(/^[A-Za-z0-9]{20}$/) });
    const session = staffClient(app.baseUrl);
    await session.signIn(created.email, created.password);
    expect(await runCommand(app.services, 'staff.revoke-sessions', { staffId: created.staffId })).toEqual({ revoked: 1 });
    expect(await session.client.auth.me.query()).toBeNull();
  });

  it('refuses a duplicate email with 409 and a short password with 400', async () => {
    const staff = await newStaff();
    await expect(app.services.staff.createAccount({ partner: 'other', email: staff.email, role: 'support' })).rejects.toMatchObject({ status: 409, code: 'CONFLICT' });
    await expect(app.services.staff.createAccount({ partner: 'other', email: 'short@example.com', role: 'support', password: 'short' })).rejects.toMatchObject({ status: 400 });
  });
});
