import { z } from 'zod';
import type { StaffRole } from '../ports.ts';

/** Staff inputs: a module without node: imports, so the console's forms can use it in the browser. */
export const staffRoles = ['owner', 'developer', 'support'] as const satisfies readonly StaffRole[];

const email = z.email().max(254).transform((e) => e.toLowerCase());
const password = z.string().min(12, 'at least 12 characters').max(256);

export const createStaffInput = z.strictObject({
  partner: z.string().trim().min(1).max(100),
  email,
  role: z.enum(staffRoles),
  /** Omitted: a password is generated and returned once. */
  password: password.optional(),
});

export const signInInput = z.strictObject({ email, password: z.string().min(1).max(256) });
