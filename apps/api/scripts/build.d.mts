/** Bundles the API into apps/api/dist unless it is up to date; resolves true when it built. */
export function buildApi(): Promise<boolean>;
/** What `npm start` runs after the build: `node ...args` with `env` added (cwd: the repository root). */
export const startCommand: { args: string[]; env: Record<string, string> };
/** Node's options of the API process (startCommand's, before the script). */
export const apiNodeFlags: string[];
