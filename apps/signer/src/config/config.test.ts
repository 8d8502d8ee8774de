import { execFile, spawnSync } from 'node:child_process';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { signerClientSettings } from '../client/settings.ts';
import { loadSignerConfig, repoRoot } from './config.ts';
import { assertPrivateFile, ensureLocalSignerCredentials } from './credentials.ts';

const root = mkdtempSync(path.join(tmpdir(), 'signer-config-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const tlsDir = path.join(root, 'tls');
const creds = ensureLocalSignerCredentials(tlsDir);
const recoveryFile = path.join(root, 'recovery-public.pem');
writeFileSync(recoveryFile, generateKeyPairSync('x25519').publicKey.export({ type: 'spki', format: 'pem' }));
const production = (extra: Record<string, string | undefined> = {}) => ({
  APP_ENV: 'production',
  DATA_DIR: path.join(root, 'data'),
  USER_SHARE_KEKS: 'u1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
  SERVICE_SHARE_KEKS: 's1:AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=',
  SIGNER_TLS_CA: creds.caFile,
  SIGNER_TLS_CERT: creds.certFile,
  SIGNER_TLS_KEY: creds.keyFile,
  SIGNER_LISTEN: '0.0.0.0:7443',
  RECOVERY_PUBLIC_KEY_FILE: recoveryFile,
  ...extra,
});

describe('signer config', () => {
  it('local mode defaults: the repository data dir, a socket and generated credentials in DATA_DIR/signer, file KEKs', () => {
    const config = loadSignerConfig({});
    expect(config.appEnv).toBe('local');
    expect(config.dataDir).toBe(path.join(repoRoot, '.data'));
    expect(config.signerDataDir).toBe(path.join(repoRoot, '.data', 'signer'));
    expect(config.listen).toEqual({ socketPath: path.join(repoRoot, '.data', 'signer', 'signer.sock') });
    expect(config.tls.keyFile).toBe(path.join(repoRoot, '.data', 'signer', 'tls', 'signer-key.pem'));
    expect(config.localCredentialsDir).toBe(path.join(repoRoot, '.data', 'signer', 'tls'));
    expect(config).toMatchObject({ kekSource: 'file', allowedClientNames: ['wallet-api'], limits: { perWalletPerMinute: 600, perServiceKeyPerMinute: 6000, nativeValueCaps: {} } });
  });

  it('reads listen, limits, clients and caps', () => {
    const config = loadSignerConfig({
      DATA_DIR: root,
      SIGNER_LISTEN: '[::1]:7443',
      SIGNER_ALLOWED_CLIENTS: 'wallet-api, wallet-worker',
      SIGNER_MAX_SIGNATURES_PER_WALLET_PER_MINUTE: '30',
      SIGNER_MAX_SIGNATURES_PER_SERVICE_KEY_PER_MINUTE: '120',
      SIGNER_MAX_NATIVE_VALUE_EVM_WEI: '1000000000000000000',
      SIGNER_MAX_NATIVE_VALUE_SOLANA_LAMPORTS: '5000000000',
    });
    expect(config.listen).toEqual({ host: '::1', port: 7443 });
    expect(config.allowedClientNames).toEqual(['wallet-api', 'wallet-worker']);
    expect(config.limits).toEqual({ perWalletPerMinute: 30, perServiceKeyPerMinute: 120, nativeValueCaps: { EVM: 10n ** 18n, SOLANA: 5_000_000_000n } });
    expect(() => loadSignerConfig({ SIGNER_MAX_SIGNATURES_PER_SERVICE_KEY_PER_MINUTE: '0' })).toThrow(/SIGNER_MAX_SIGNATURES_PER_SERVICE_KEY_PER_MINUTE must be a positive whole number/);
    expect(loadSignerConfig({ DATA_DIR: root }).presignPool).toEqual({ perWallet: 4, total: 256, maxAgeMs: 600_000 });
    expect(loadSignerConfig({ DATA_DIR: root, SIGNER_PRESIGN_POOL_PER_WALLET: '8', SIGNER_PRESIGN_POOL_TOTAL: '1000', SIGNER_PRESIGN_POOL_MAX_AGE_SECONDS: '900' }).presignPool).toEqual({ perWallet: 8, total: 1000, maxAgeMs: 900_000 });
    expect(() => loadSignerConfig({ SIGNER_PRESIGN_POOL_PER_WALLET: '0', SIGNER_PRESIGN_POOL_MAX_AGE_SECONDS: '10m' })).toThrow(
      /SIGNER_PRESIGN_POOL_PER_WALLET must be a whole number from 1 to 64[\s\S]*SIGNER_PRESIGN_POOL_MAX_AGE_SECONDS must be a whole number from 60 to 86400/,
    );
    expect(() => loadSignerConfig({ SIGNER_MAX_NATIVE_VALUE_EVM_WEI: '1e18', SIGNER_LISTEN: 'nowhere' })).toThrow(/SIGNER_LISTEN: nowhere: expected[\s\S]*SIGNER_MAX_NATIVE_VALUE_EVM_WEI must be a whole number of wei/);
  });

  it('production starts with env KEKs and private TLS files', () => {
    const config = loadSignerConfig(production());
    expect(config).toMatchObject({ appEnv: 'production', kekSource: 'env', kekFile: undefined, localCredentialsDir: undefined, listen: { host: '0.0.0.0', port: 7443 } });
    expect(config.kekEnv.USER_SHARE_KEKS).toMatch(/^u1:/);
  });

  it('beta and production refuse to start without the recovery public key', () => {
    for (const appEnv of ['beta', 'production']) {
      expect(() => loadSignerConfig(production({ APP_ENV: appEnv, RECOVERY_PUBLIC_KEY_FILE: undefined }))).toThrow(new RegExp(`RECOVERY_PUBLIC_KEY_FILE is not set; ${appEnv} seals FROST participant 3`));
    }
    expect(loadSignerConfig(production()).recoveryPublicKeyFile).toBe(recoveryFile);
  });

  it('beta and production refuse generated KEKs', () => {
    for (const appEnv of ['beta', 'production']) {
      expect(() => loadSignerConfig(production({ APP_ENV: appEnv, USER_SHARE_KEKS: undefined, SERVICE_SHARE_KEKS: undefined }))).toThrow(new RegExp(`USER_SHARE_KEKS and SERVICE_SHARE_KEKS are not both set; ${appEnv} signs only with KEKs from the environment`));
    }
    // Both share KEK variables, never one alone.
    expect(() => loadSignerConfig(production({ SERVICE_SHARE_KEKS: undefined }))).toThrow(/USER_SHARE_KEKS and SERVICE_SHARE_KEKS are not both set/);
    const dataDir = path.join(root, 'with-kek-file');
    mkdirSync(path.join(dataDir, 'signer'), { recursive: true });
    writeFileSync(path.join(dataDir, 'signer', 'keks.json'), '{}', { mode: 0o600 });
    expect(() => loadSignerConfig(production({ DATA_DIR: dataDir }))).toThrow(/keks\.json is a generated KEK file, which production does not use/);
  });

  it('beta and production refuse missing TLS files, naming the variable and the file', () => {
    expect(() => loadSignerConfig(production({ SIGNER_TLS_CERT: undefined }))).toThrow(/SIGNER_TLS_CERT is not set/);
    const missing = path.join(root, 'nope.pem');
    expect(() => loadSignerConfig(production({ APP_ENV: 'beta', SIGNER_TLS_CA: missing }))).toThrow(`SIGNER_TLS_CA: ${missing} does not exist`);
  });

  it('refuses a TLS key or a KEK file readable by group or others, with the chmod that fixes it, never the key', () => {
    const key = path.join(root, 'loose-key.pem');
    writeFileSync(key, '-----BEGIN PRIVATE KEY-----\nSECRETSECRET\n-----END PRIVATE KEY-----\n');
    chmodSync(key, 0o640);
    let message = '';
    try {
      loadSignerConfig(production({ SIGNER_TLS_KEY: key }));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain(`SIGNER_TLS_KEY: ${key} is accessible by group or others (mode 640); restrict it with: chmod 600 ${key}`);
    expect(message).not.toContain('SECRET');
    const dataDir = path.join(root, 'loose-kek');
    mkdirSync(path.join(dataDir, 'signer'), { recursive: true });
    writeFileSync(path.join(dataDir, 'signer', 'keks.json'), '{}', { mode: 0o644 });
    chmodSync(path.join(dataDir, 'signer', 'keks.json'), 0o644);
    expect(() => loadSignerConfig({ DATA_DIR: dataDir })).toThrow(/KEK file: .*keks\.json is accessible by group or others \(mode 644\)/);
    expect(() => assertPrivateFile(key)).toThrow(/chmod 600/);
  });

  it('refuses the demo handlers outside local mode', () => {
    expect(() => loadSignerConfig(production({ SIGNER_DEMO_HANDLERS: '1' }))).toThrow(/SIGNER_DEMO_HANDLERS is a test switch/);
  });
});

describe('signer credentials', () => {
  it('are generated once, 0600 in a 0700 directory, and concurrent processes agree', async () => {
    const dir = path.join(root, 'concurrent', 'tls');
    const script = `import { ensureLocalSignerCredentials } from ${JSON.stringify(path.join(import.meta.dirname, 'credentials.ts'))};
      const r = ensureLocalSignerCredentials(${JSON.stringify(dir)}); process.stdout.write(JSON.stringify(r.created));`;
    const runs = await Promise.all(
      Array.from({ length: 4 }, () => new Promise<string>((resolve, reject) => {
        execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], (error, stdout) => (error ? reject(error) : resolve(stdout)));
      })),
    );
    expect(runs.filter((r) => r === 'true').length).toBe(1);
    const again = ensureLocalSignerCredentials(dir);
    expect(again.created).toBe(false);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    for (const file of [again.caFile, again.certFile, again.keyFile, again.clientCertFile, again.clientKeyFile]) assertPrivateFile(file);
    // Every process ended with the same, complete set: the server certificate is issued by the CA.
    expect(new X509Certificate(readFileSync(again.certFile)).checkIssued(new X509Certificate(readFileSync(again.caFile)))).toBe(true);
    expect(readdirSync(path.dirname(dir))).toEqual(['tls']);
  });

  it('take over a generation lock left by a dead process', () => {
    const dir = path.join(root, 'stale', 'tls');
    mkdirSync(path.dirname(dir), { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(`${dir}.lock`, `${dead}\n`, { mode: 0o600 });
    const made = ensureLocalSignerCredentials(dir);
    expect(made.created).toBe(true);
    expect(readdirSync(path.dirname(dir))).toEqual(['tls']);
  });
});

describe('signer client settings', () => {
  it('local defaults point at the generated client files and the socket', () => {
    const dataDir = path.join(root, 'client-data');
    ensureLocalSignerCredentials(path.join(dataDir, 'signer', 'tls'));
    const settings = signerClientSettings({}, dataDir);
    expect(settings.url).toBe(`unix:${path.join(dataDir, 'signer', 'signer.sock')}`);
    expect(settings.files.key).toBe(path.join(dataDir, 'signer', 'tls', 'api-key.pem'));
    expect(settings.tls.cert).toContain('BEGIN CERTIFICATE');
  });

  it('production needs every variable', () => {
    expect(() => signerClientSettings({ APP_ENV: 'production' }, root)).toThrow(/SIGNER_URL is not set[\s\S]*SIGNER_CLIENT_TLS_CA is not set[\s\S]*SIGNER_CLIENT_TLS_KEY is not set/);
    const settings = signerClientSettings(
      { APP_ENV: 'production', SIGNER_URL: 'https://signer.internal:7443', SIGNER_CLIENT_TLS_CA: creds.caFile, SIGNER_CLIENT_TLS_CERT: creds.clientCertFile, SIGNER_CLIENT_TLS_KEY: creds.clientKeyFile, SIGNER_TIMEOUT_MS: '5000' },
      root,
    );
    expect(settings).toMatchObject({ url: 'https://signer.internal:7443', timeoutMs: 5000 });
  });
});
