/**
 * The signer process's configuration, from environment variables (each documented in
 * apps/signer/README.md). An empty value counts as unset. In beta and production it refuses to
 * start without USER_SHARE_KEKS and SERVICE_SHARE_KEKS, without its TLS files, or with a key file group or others can read;
 * messages name the variable or the file, never a value that could be a secret.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SIGNER_CRASH_POINTS } from '../crash-at.ts';
import { parseLogLevel, type LogLevel } from '../server/logger.ts';
import { DEFAULT_CLIENT_NAME, parseListen, type SignerListen } from '../transport/protocol.ts';
import { CREDENTIAL_FILES } from './credentials.ts';
import { assertPrivateFile } from './private-file.ts';

export type AppEnv = 'local' | 'beta' | 'production';

/** The repository root (apps/signer/src/config → four levels up); the bundle keeps this file's own URL. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** The generated KEK file of local mode, in the signer's data directory. */
export const LOCAL_KEK_FILE = 'keks.json';

export class SignerConfigError extends Error {
  override name = 'SignerConfigError';
}

export interface SignerConfig {
  appEnv: AppEnv;
  dataDir: string;
  /** The signer's own directory (store, socket, local credentials). */
  signerDataDir: string;
  listen: SignerListen;
  /** TLS files of the listener. */
  tls: { caFile: string; certFile: string; keyFile: string };
  /** Local mode: the directory where the default TLS files are generated (undefined when all three are given). */
  localCredentialsDir: string | undefined;
  allowedClientNames: string[];
  limits: { perWalletPerMinute: number; perServiceKeyPerMinute: number; nativeValueCaps: { EVM?: bigint; SOLANA?: bigint } };
  /** Threshold ECDSA presignatures the signer keeps for the API's pool: per wallet, in all, and how long each. */
  presignPool: { perWallet: number; total: number; maxAgeMs: number };
  /** 'env' in beta and production (USER_SHARE_KEKS, SERVICE_SHARE_KEKS), 'file' in local mode without them (a generated kekFile). */
  kekSource: 'file' | 'env';
  /** The raw KEK variables, for the KEK provider the handlers build (never logged). */
  kekEnv: { USER_SHARE_KEKS?: string; SERVICE_SHARE_KEKS?: string };
  /** The generated KEK file of local mode (SIGNER_DATA_DIR/keks.json); undefined when kekSource is 'env'. */
  kekFile: string | undefined;
  logLevel: LogLevel;
  /** SIGNER_EXIT_WITH_PARENT=1: exit when stdin closes or the parent process disappears. */
  exitWithParent: boolean;
  /** SIGNER_DEMO_HANDLERS=1 (local mode only): also serve the transport test handlers. */
  demoHandlers: boolean;
  /** RECOVERY_PUBLIC_KEY_FILE (PEM, X25519): FROST participant 3's shares are sealed to it; local mode without it generates DATA_DIR/recovery. */
  recoveryPublicKeyFile: string | undefined;
}

type Env = Record<string, string | undefined>;

export function loadSignerConfig(env: Env = process.env): SignerConfig {
  const problems: string[] = [];
  const get = (name: string) => (env[name] === undefined || env[name] === '' ? undefined : env[name]);

  const appEnvText = get('APP_ENV') ?? 'local';
  if (!['local', 'beta', 'production'].includes(appEnvText)) throw new SignerConfigError('APP_ENV must be local, beta or production');
  const appEnv = appEnvText as AppEnv;
  const local = appEnv === 'local';

  const dataDir = path.resolve(repoRoot, get('DATA_DIR') ?? '.data');
  const signerDataDir = path.resolve(repoRoot, get('SIGNER_DATA_DIR') ?? path.join(dataDir, 'signer'));

  let listen: SignerListen = { socketPath: path.join(signerDataDir, 'signer.sock') };
  const listenText = get('SIGNER_LISTEN');
  if (listenText !== undefined) {
    try {
      listen = parseListen(listenText);
    } catch (error) {
      problems.push(`SIGNER_LISTEN: ${(error as Error).message}`);
    }
  }

  const credentialsDir = path.join(signerDataDir, 'tls');
  const tlsVars = { caFile: 'SIGNER_TLS_CA', certFile: 'SIGNER_TLS_CERT', keyFile: 'SIGNER_TLS_KEY' } as const;
  const defaults = { caFile: CREDENTIAL_FILES.ca, certFile: CREDENTIAL_FILES.cert, keyFile: CREDENTIAL_FILES.key } as const;
  const tls = { caFile: '', certFile: '', keyFile: '' };
  let usesGenerated = false;
  for (const key of Object.keys(tlsVars) as Array<keyof typeof tlsVars>) {
    const given = get(tlsVars[key]);
    if (given !== undefined) {
      tls[key] = path.resolve(repoRoot, given);
      if (!existsSync(tls[key])) problems.push(`${tlsVars[key]}: ${tls[key]} does not exist`);
    } else if (local) {
      tls[key] = path.join(credentialsDir, defaults[key]);
      usesGenerated = true;
    } else {
      problems.push(`${tlsVars[key]} is not set; ${appEnv} needs the signer's TLS files (no generated certificates outside local mode)`);
    }
  }
  if (tls.keyFile && existsSync(tls.keyFile)) {
    try {
      assertPrivateFile(tls.keyFile, 'SIGNER_TLS_KEY');
    } catch (error) {
      problems.push((error as Error).message);
    }
  }

  const allowedClientNames = (get('SIGNER_ALLOWED_CLIENTS') ?? DEFAULT_CLIENT_NAME)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (allowedClientNames.length === 0) problems.push('SIGNER_ALLOWED_CLIENTS must list at least one client certificate name');

  const rateText = get('SIGNER_MAX_SIGNATURES_PER_WALLET_PER_MINUTE') ?? '600';
  const perWalletPerMinute = /^\d+$/.test(rateText) ? Number(rateText) : NaN;
  if (!Number.isSafeInteger(perWalletPerMinute) || perWalletPerMinute < 1) problems.push('SIGNER_MAX_SIGNATURES_PER_WALLET_PER_MINUTE must be a positive whole number');
  const serviceRateText = get('SIGNER_MAX_SIGNATURES_PER_SERVICE_KEY_PER_MINUTE') ?? '6000';
  const perServiceKeyPerMinute = /^\d+$/.test(serviceRateText) ? Number(serviceRateText) : NaN;
  if (!Number.isSafeInteger(perServiceKeyPerMinute) || perServiceKeyPerMinute < 1) problems.push('SIGNER_MAX_SIGNATURES_PER_SERVICE_KEY_PER_MINUTE must be a positive whole number');

  const wholeNumber = (name: string, fallback: number, min: number, max: number) => {
    const text = get(name) ?? String(fallback);
    const value = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(value) || value < min || value > max) problems.push(`${name} must be a whole number from ${min} to ${max}`);
    return value;
  };
  const presignPool = {
    perWallet: wholeNumber('SIGNER_PRESIGN_POOL_PER_WALLET', 4, 1, 64),
    total: wholeNumber('SIGNER_PRESIGN_POOL_TOTAL', 256, 1, 100_000),
    maxAgeMs: wholeNumber('SIGNER_PRESIGN_POOL_MAX_AGE_SECONDS', 600, 60, 86_400) * 1000,
  };

  const nativeValueCaps: { EVM?: bigint; SOLANA?: bigint } = {};
  for (const [chain, name, unit] of [
    ['EVM', 'SIGNER_MAX_NATIVE_VALUE_EVM_WEI', 'wei'],
    ['SOLANA', 'SIGNER_MAX_NATIVE_VALUE_SOLANA_LAMPORTS', 'lamports'],
  ] as const) {
    const text = get(name);
    if (text === undefined) continue;
    if (/^\d+$/.test(text)) nativeValueCaps[chain] = BigInt(text);
    else problems.push(`${name} must be a whole number of ${unit}`);
  }

  // The share KEK variables of packages/domain/src/custody/kek.ts (envKekProvider): both, or neither in local mode.
  const userKeks = get('USER_SHARE_KEKS');
  const serviceKeks = get('SERVICE_SHARE_KEKS');
  const envKeks = userKeks !== undefined && serviceKeks !== undefined;
  const kekSource = userKeks !== undefined || serviceKeks !== undefined || !local ? 'env' : 'file';
  if (kekSource === 'env' && local && !envKeks) problems.push('USER_SHARE_KEKS and SERVICE_SHARE_KEKS go together: set both, or neither (local mode then generates a KEK file)');
  const kekFile = path.join(signerDataDir, LOCAL_KEK_FILE);
  if (!local) {
    if (!envKeks) {
      problems.push(`USER_SHARE_KEKS and SERVICE_SHARE_KEKS are not both set; ${appEnv} signs only with KEKs from the environment (id:base64key,...), never with a generated KEK file`);
    }
    if (existsSync(kekFile)) problems.push(`${kekFile} is a generated KEK file, which ${appEnv} does not use; remove it from the signer's data directory (USER_SHARE_KEKS and SERVICE_SHARE_KEKS hold the KEKs)`);
  }
  if (existsSync(kekFile)) {
    try {
      assertPrivateFile(kekFile, 'KEK file');
    } catch (error) {
      problems.push((error as Error).message);
    }
  }

  let logLevel: LogLevel = 'info';
  try {
    logLevel = parseLogLevel(get('LOG_LEVEL'));
  } catch (error) {
    problems.push((error as Error).message);
  }

  const recoveryText = get('RECOVERY_PUBLIC_KEY_FILE');
  const recoveryPublicKeyFile = recoveryText === undefined ? undefined : path.resolve(repoRoot, recoveryText);
  if (recoveryPublicKeyFile !== undefined && !existsSync(recoveryPublicKeyFile)) problems.push(`RECOVERY_PUBLIC_KEY_FILE: ${recoveryPublicKeyFile} does not exist`);
  if (recoveryPublicKeyFile === undefined && !local) {
    problems.push(`RECOVERY_PUBLIC_KEY_FILE is not set; ${appEnv} seals FROST participant 3's shares to the operator's offline recovery public key (PEM, X25519) and never generates one`);
  }

  const demoHandlers = get('SIGNER_DEMO_HANDLERS') === '1';
  if (demoHandlers && !local) problems.push(`SIGNER_DEMO_HANDLERS is a test switch; refusing to start ${appEnv} with it`);
  const crashAt = get('SIGNER_CRASH_AT');
  if (crashAt !== undefined && !local) problems.push(`SIGNER_CRASH_AT is a fault-injection switch for tests; refusing to start ${appEnv} with it`);
  else if (crashAt !== undefined && !(SIGNER_CRASH_POINTS as readonly string[]).includes(crashAt)) problems.push(`SIGNER_CRASH_AT must be one of ${SIGNER_CRASH_POINTS.join(', ')}`);

  if (problems.length > 0) throw new SignerConfigError(`signer configuration refused:\n- ${problems.join('\n- ')}`);
  return {
    appEnv,
    dataDir,
    signerDataDir,
    listen,
    tls,
    localCredentialsDir: usesGenerated ? credentialsDir : undefined,
    allowedClientNames,
    limits: { perWalletPerMinute, perServiceKeyPerMinute, nativeValueCaps },
    presignPool,
    kekSource,
    kekEnv: { USER_SHARE_KEKS: userKeks, SERVICE_SHARE_KEKS: serviceKeks },
    kekFile: kekSource === 'file' ? kekFile : undefined,
    logLevel,
    exitWithParent: get('SIGNER_EXIT_WITH_PARENT') === '1',
    demoHandlers,
    recoveryPublicKeyFile,
  };
}
