import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { NextConfig } from 'next';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The console is a client of the tRPC API. `/trpc/*` and `/graphql` are forwarded to the API by
 * route handlers (src/app/trpc, src/app/graphql) that read API_URL at request time, so the session
 * cookie is first-party on the console's origin. (Next `rewrites` are frozen into the build's
 * routes manifest, so one build could only ever talk to the API_URL it was built with.)
 */
const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // `tsc --noEmit` (npm run typecheck) checks the code; the build does not do it a second time.
  typescript: { ignoreBuildErrors: true },
  transpilePackages: ['@wallet/domain'],
  turbopack: {
    root: repoRoot,
  },
  outputFileTracingRoot: repoRoot,
  devIndicators: false,
};

export default config;
