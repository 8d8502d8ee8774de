import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from './event-types.ts';

/** Webhook inputs: a module without node: imports, so the console's forms can use it in the browser. */
export const webhookConfigInput = z.strictObject({
  url: z.string().trim().min(1),
  eventTypes: z.array(z.string().trim().min(1).max(100)).max(WEBHOOK_EVENT_TYPES.length * 2).default([]),
  enabled: z.boolean().default(true),
});

export const resendInput = z.union([
  z.strictObject({ eventId: z.string().regex(/^evt_[A-Za-z0-9_-]{1,64}$/, 'an event id (evt_…)') }),
  z.strictObject({ txHash: z.string().trim().min(1).max(200) }),
]);
