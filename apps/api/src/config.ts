import { fileURLToPath } from 'node:url';
import path from 'node:path';

export type AppEnv = 'local' | 'beta' | 'production';

export interface Config {
  appEnv: AppEnv;
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  logLevel: string;
  trustProxy: boolean;
  /** How long an authenticated API key is reused before the database is read again (other processes' revocations). */
  authCacheMs: number;
  /** Share key-encryption keys from the environment; the local default keeps a generated key file instead. */
  kekSource: 'file' | 'env';
}

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export class ConfigError extends Error {}

/** Reads the configuration; beta and production refuse to start without what they need and say what is missing. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const appEnv = (env.APP_ENV ?? 'local') as AppEnv;
  if (!['local', 'beta', 'production'].includes(appEnv)) {
    throw new ConfigError(`APP_ENV must be local, beta or production (got ${JSON.stringify(env.APP_ENV)})`);
  }
  const port = Number(env.PORT ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError('PORT must be a TCP port number');
  if (!/^\d+$/.test(env.AUTH_CACHE_MS ?? '0')) throw new ConfigError('AUTH_CACHE_MS must be a whole number of milliseconds');
  if (appEnv !== 'local') {
    const missing = ['DATABASE_URL', 'USER_SHARE_KEKS', 'SERVICE_SHARE_KEKS'].filter((name) => !env[name]);
    if (missing.length > 0) {
      throw new ConfigError(`APP_ENV=${appEnv} needs ${missing.join(', ')}; refusing to start without them`);
    }
  }
  return {
    appEnv,
    host: env.HOST ?? '127.0.0.1',
    port,
    dataDir: path.resolve(repoRoot, env.DATA_DIR ?? '.data'),
    databaseUrl: env.DATABASE_URL || undefined,
    redisUrl: env.REDIS_URL || undefined,
    logLevel: env.LOG_LEVEL ?? 'info',
    trustProxy: env.TRUST_PROXY === 'true',
    authCacheMs: Number(env.AUTH_CACHE_MS ?? 2000),
    kekSource: env.USER_SHARE_KEKS || env.SERVICE_SHARE_KEKS || appEnv !== 'local' ? 'env' : 'file',
  };
}
