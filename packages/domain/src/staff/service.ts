import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { ApiError, conflict, forbidden, unauthorized } from '../errors.ts';
import { DuplicateStaffError, type StaffRecord, type StaffRole, type StaffStore } from '../ports.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import { createStaffInput, signInInput } from './schemas.ts';
import { decoyPasswordHash, generatePassword, hashPassword, verifyPassword } from './passwords.ts';

/** Who is signed in to the console: every staff use case is scoped to `partnerId`. */
export interface StaffPrincipal {
  staffId: string;
  sessionId: string;
  partnerId: string;
  partnerName: string;
  email: string;
  role: StaffRole;
}

export interface StaffView {
  staffId: string;
  partnerId: string;
  partnerName: string;
  email: string;
  role: StaffRole;
}

export const LOCAL_OWNER_EMAIL = 'owner@local.test';
export const LOCAL_PARTNER = 'local';

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');
const toView = (s: StaffRecord): StaffView => ({ staffId: s.id, partnerId: s.partnerId, partnerName: s.partnerName, email: s.email, role: s.role });

/** Support staff read; owners and developers also change things. */
export function requireWriteAccess(principal: StaffPrincipal): void {
  if (principal.role === 'support') throw forbidden('Support staff have read-only access');
}

export interface StaffServiceDeps {
  store: StaffStore;
  clock: Clock;
  /** Absolute session lifetime (default 12 h). */
  sessionTtlMs?: number;
}

export function createStaffService({ store, clock, sessionTtlMs = 12 * 60 * 60 * 1000 }: StaffServiceDeps) {
  return {
    /** Creates a console account (and its partner on first use). A generated password is returned here only. */
    async createAccount(input: z.input<typeof createStaffInput>): Promise<StaffView & { password?: string }> {
      const parsed = parseInput(createStaffInput, input);
      const generated = parsed.password === undefined ? generatePassword() : undefined;
      try {
        const record = await store.create(parsed.partner, {
          id: randomUUID(),
          email: parsed.email,
          role: parsed.role,
          passwordHash: await hashPassword(parsed.password ?? generated!),
        });
        return { ...toView(record), ...(generated ? { password: generated } : {}) };
      } catch (error) {
        if (error instanceof DuplicateStaffError) throw conflict('A staff account with this email exists');
        throw error;
      }
    },

    /** The embedded default's first owner, created only while no staff account exists at all. */
    async ensureLocalOwner(): Promise<(StaffView & { password: string }) | null> {
      if ((await store.count()) > 0) return null;
      try {
        const created = await this.createAccount({ partner: LOCAL_PARTNER, email: LOCAL_OWNER_EMAIL, role: 'owner' });
        return created as StaffView & { password: string };
      } catch (error) {
        if (error instanceof ApiError && error.code === 'CONFLICT') return null;
        throw error;
      }
    },

    /** Wrong email and wrong password are the same 401, and take the same time. */
    async signIn(input: z.input<typeof signInInput>): Promise<{ token: string; expiresAt: Date; staff: StaffView }> {
      const parsed = parseInput(signInInput, input);
      const staff = await store.findByEmail(parsed.email);
      const ok = await verifyPassword(parsed.password, staff?.passwordHash ?? (await decoyPasswordHash()));
      if (!staff || !ok || staff.disabledAt) throw unauthorized('Invalid email or password');
      const token = randomBytes(32).toString('base64url');
      const expiresAt = new Date(clock.now().getTime() + sessionTtlMs);
      await store.createSession({ id: randomUUID(), staffId: staff.id, tokenHash: hashToken(token), expiresAt });
      return { token, expiresAt, staff: toView(staff) };
    },

    async authenticate(token: string | undefined): Promise<StaffPrincipal | null> {
      if (!token || token.length > 128) return null;
      const found = await store.findActiveSession(hashToken(token), clock.now());
      if (!found) return null;
      return { ...toView(found.staff), sessionId: found.sessionId };
    },

    async signOut(token: string | undefined): Promise<void> {
      if (token) await store.revokeSession(hashToken(token), clock.now());
    },

    /** Ends every session of an account (e.g. after a password leak). */
    async revokeSessions(staffId: string): Promise<{ revoked: number }> {
      return { revoked: await store.revokeAllSessions(staffId, clock.now()) };
    },

    async listStaff(principal: StaffPrincipal): Promise<StaffView[]> {
      return (await store.listByPartner(principal.partnerId)).map(toView);
    },
  };
}

export type StaffService = ReturnType<typeof createStaffService>;
