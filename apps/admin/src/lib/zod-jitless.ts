import { z } from 'zod';

/**
 * zod compiles object parsers with `new Function` unless told not to, and probes whether it may
 * first: under the console's CSP (no 'unsafe-eval', src/lib/security-headers.ts) that probe is
 * refused and reported as a CSP violation even though zod catches it. Imported before any schema
 * parses (src/lib/trpc.tsx, the client root), so the probe never runs.
 */
z.config({ jitless: true });
