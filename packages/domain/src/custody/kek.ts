/**
 * Key-encryption-key (KEK) sources for the share envelopes (see shares.ts).
 *
 * - `fileKekProvider(dataDir)`: the embedded default. `${dataDir}/keks.json` holds one generated
 *   32-byte key per role of the process, created with mode 0600 on first use; a file readable or writable by
 *   group/others is refused. It protects database dumps/backups that do not include the data
 *   directory; anyone who can read both the database and this file can decrypt every share.
 * - `envKekProvider(env, roles)`: production. One variable per role (`USER_SHARE_KEKS` and
 *   `SERVICE_SHARE_KEKS` in the signer, `API_KEKS` in the API), each a comma-separated list of
 *   `id:base64key` entries; the first is current (encrypts new shares), the others stay readable so
 *   shares encrypted under a retired KEK can still be decrypted.
 *
 * Each process passes the roles it holds; a key file or variable of another role is refused.
 *
 * Error messages name the file or variable and the entry number, never key material.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createFileWhole } from './create-file.ts';
import type { Kek, KekProvider, KekRole } from './types.ts';

const KEY_LENGTH = 32;
/** The signer's KEK roles (wallet shares, service keys, the enclave key); the API's is `api`. */
export const SIGNER_KEK_ROLES: readonly KekRole[] = ['user', 'service'];
export const API_KEK_ROLES: readonly KekRole[] = ['api'];
const KEK_ID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
/** Standard base64 (padded or not) or base64url of exactly 32 bytes. */
const KEY_B64_PATTERN = /^(?:[A-Za-z0-9+/]{43}=?|[A-Za-z0-9_-]{43})$/;

interface KeySet {
  current: Partial<Record<KekRole, Kek>>;
  all: Map<string, Kek>;
}

function providerOf(set: KeySet): KekProvider {
  return {
    current: (role) => {
      const kek = set.current[role];
      if (!kek) throw new Error(`no key-encryption key for role ${String(role)}`);
      return kek;
    },
    byId: (id) => set.all.get(id),
    list: () => [...set.all.values()],
  };
}

function decodeKey(text: unknown): Buffer | undefined {
  if (typeof text !== 'string' || !KEY_B64_PATTERN.test(text)) return undefined;
  const key = Buffer.from(text, text.includes('-') || text.includes('_') ? 'base64url' : 'base64');
  return key.length === KEY_LENGTH ? key : undefined;
}

/** Throws when a key appears twice or one id is used for two keys. */
function checkDistinct(entries: Array<{ role: KekRole; kek: Kek; label: string }>, source: string): void {
  for (let i = 0; i < entries.length; i++) {
    for (let j = i + 1; j < entries.length; j++) {
      const a = entries[i]!;
      const b = entries[j]!;
      if (a.kek.id === b.kek.id) throw new Error(`${source}: key id ${a.kek.id} is used twice (${a.label} and ${b.label})`);
      if (a.kek.key.equals(b.kek.key)) {
        throw new Error(
          a.role === b.role
            ? `${source}: ${a.label} and ${b.label} hold the same key`
            : `${source}: the user and service KEKs must not share a key (${a.label} and ${b.label} are equal)`,
        );
      }
    }
  }
}

// ---------------------------------------------------------------------------------------------
// File provider
// ---------------------------------------------------------------------------------------------

interface KekFile {
  version: 1;
  current: Partial<Record<KekRole, string>>;
  keys: Array<{ id: string; role: KekRole; key: string }>;
}

export const KEK_FILE_NAME = 'keks.json';

function newFileKeks(roles: readonly KekRole[]): KekFile {
  const keys = roles.map((role) => ({
    id: `file-${role}-${randomBytes(4).toString('hex')}`,
    role,
    key: randomBytes(KEY_LENGTH).toString('base64'),
  }));
  return {
    version: 1,
    current: Object.fromEntries(keys.map((k) => [k.role, k.id])) as Partial<Record<KekRole, string>>,
    keys,
  };
}

function parseKekFile(text: string, file: string, roles: readonly KekRole[]): KeySet {
  let data: Partial<KekFile>;
  try {
    data = JSON.parse(text) as Partial<KekFile>;
  } catch {
    throw new Error(`${file} is not valid JSON`);
  }
  if (data?.version !== 1 || !Array.isArray(data.keys) || typeof data.current !== 'object' || data.current === null) {
    throw new Error(`${file} has an unsupported format (expected version 1 with current and keys)`);
  }
  const entries: Array<{ role: KekRole; kek: Kek; label: string }> = [];
  data.keys.forEach((entry, index) => {
    const label = `key ${index + 1}`;
    if (typeof entry?.id !== 'string' || !KEK_ID_PATTERN.test(entry.id)) throw new Error(`${file}: ${label} has an invalid id`);
    if (!roles.includes(entry.role)) throw new Error(`${file}: ${label} has a role this process does not hold (${roles.join(', ')})`);
    const key = decodeKey(entry.key);
    if (!key) throw new Error(`${file}: ${label} is not a base64 32-byte key`);
    entries.push({ role: entry.role, kek: { id: entry.id, key }, label });
  });
  checkDistinct(entries, file);
  const all = new Map(entries.map((e) => [e.kek.id, e.kek] as const));
  const current: Partial<Record<KekRole, Kek>> = {};
  for (const role of roles) {
    const id = data.current[role];
    const entry = entries.find((e) => e.kek.id === id);
    if (!entry || entry.role !== role) throw new Error(`${file}: current ${role} key is missing or has another role`);
    current[role] = entry.kek;
  }
  return { current, all };
}

function readKekFile(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${file} is not a regular file`);
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(3, '0');
      throw new Error(`${file} is accessible by group or others (mode ${mode}); restrict it with: chmod 600 ${file}`);
    }
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * KEKs kept in `${dataDir}/keks.json` (created, mode 0600, with the directory if missing).
 * Re-opening the same directory yields the same keys.
 */
export function fileKekProvider(dataDir: string, roles: readonly KekRole[] = SIGNER_KEK_ROLES): KekProvider {
  const file = join(dataDir, KEK_FILE_NAME);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let text: string;
  try {
    text = readKekFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    // Never overwrites a file another process created in the meantime: then that one is read.
    createFileWhole(file, `${JSON.stringify(newFileKeks(roles), null, 2)}\n`, 0o600);
    text = readKekFile(file);
  }
  return providerOf(parseKekFile(text, file, roles));
}

// ---------------------------------------------------------------------------------------------
// Environment provider
// ---------------------------------------------------------------------------------------------

/** The variables of each role's KEKs: the signer reads the share roles, the API `API_KEKS`. */
export const KEK_ENV_VARS: Record<KekRole, string> = {
  user: 'USER_SHARE_KEKS',
  service: 'SERVICE_SHARE_KEKS',
  api: 'API_KEKS',
};

const ENV_FORMAT_HINT = 'expected a comma-separated list of id:base64key entries, each key 32 bytes';

function parseEnvList(name: string, value: string | undefined, role: KekRole): Array<{ role: KekRole; kek: Kek; label: string }> {
  if (value === undefined || value.trim() === '') throw new Error(`${name} is not set; ${ENV_FORMAT_HINT}`);
  return value.split(',').map((raw, index) => {
    const label = `${name} entry ${index + 1}`;
    const entry = raw.trim();
    const colon = entry.indexOf(':');
    // Never echo the entry: with a missing separator it may be the key itself.
    if (colon <= 0) throw new Error(`${label} is malformed; ${ENV_FORMAT_HINT}`);
    const id = entry.slice(0, colon);
    if (!KEK_ID_PATTERN.test(id)) throw new Error(`${label} has an invalid id (letters, digits, '.', '_', '-'; at most 64)`);
    const key = decodeKey(entry.slice(colon + 1));
    if (!key) throw new Error(`${label} (id ${id}) does not hold a base64-encoded 32-byte key`);
    return { role, kek: { id, key }, label };
  });
}

/**
 * KEKs from `USER_SHARE_KEKS` and `SERVICE_SHARE_KEKS` (`id:base64key,...`; first entry current).
 * Throws an Error naming the variable when one is missing or malformed.
 */
export function envKekProvider(env: Record<string, string | undefined>, roles: readonly KekRole[] = SIGNER_KEK_ROLES): KekProvider {
  const lists = roles.map((role) => parseEnvList(KEK_ENV_VARS[role], env[KEK_ENV_VARS[role]], role));
  const entries = lists.flat();
  checkDistinct(entries, roles.length > 1 ? 'share KEKs' : KEK_ENV_VARS[roles[0]!]);
  return providerOf({
    current: Object.fromEntries(lists.map((list) => [list[0]!.role, list[0]!.kek])) as Partial<Record<KekRole, Kek>>,
    all: new Map(entries.map((e) => [e.kek.id, e.kek] as const)),
  });
}

/** A fresh `id:base64key` entry for USER_SHARE_KEKS / SERVICE_SHARE_KEKS / API_KEKS. */
export function generateKekEntry(id: string): string {
  if (!KEK_ID_PATTERN.test(id)) throw new Error("a KEK id uses letters, digits, '.', '_', '-' (at most 64)");
  return `${id}:${randomBytes(KEY_LENGTH).toString('base64')}`;
}
