import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fileKekProvider } from './kek.ts';
import { ensureLocalRecoveryKey, RECOVERY_PUBLIC_FILE } from './recovery-key.ts';

const root = mkdtempSync(path.join(tmpdir(), 'local-key-files-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs `body` in `count` fresh processes at once; answers what each printed. */
function inProcesses(count: number, body: string): Promise<string[]> {
  const script = `import * as kek from ${JSON.stringify(path.join(import.meta.dirname, 'kek.ts'))};
    import * as recovery from ${JSON.stringify(path.join(import.meta.dirname, 'recovery-key.ts'))};
    ${body}`;
  return Promise.all(Array.from({ length: count }, () => new Promise<string>((resolve, reject) => {
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], (error, stdout) => (error ? reject(error) : resolve(stdout)));
  })));
}

describe('generated local key files', () => {
  it('concurrent first starts agree on one recovery key and one KEK file, with no temporary files left', async () => {
    const dir = path.join(root, 'concurrent');
    const runs = await inProcesses(4, `
      const key = recovery.ensureLocalRecoveryKey(${JSON.stringify(path.join(dir, 'recovery'))});
      const keks = kek.fileKekProvider(${JSON.stringify(path.join(dir, 'keks'))}, ['user']);
      process.stdout.write(key.id + ' ' + keks.current('user').id);`);
    expect(new Set(runs).size).toBe(1);
    expect(ensureLocalRecoveryKey(path.join(dir, 'recovery')).id).toBe(runs[0]!.split(' ')[0]);
    expect(readdirSync(path.join(dir, 'recovery')).sort()).toEqual(['recovery-private.pem', 'recovery-public.pem']);
    expect(readdirSync(path.join(dir, 'keks'))).toEqual(['keks.json']);
    expect(statSync(path.join(dir, 'keks', 'keks.json')).mode & 0o777).toBe(0o600);
  });

  it('a start killed between the private and the public recovery file is finished by the next one', () => {
    const dir = path.join(root, 'half');
    const first = ensureLocalRecoveryKey(dir);
    unlinkSync(path.join(dir, RECOVERY_PUBLIC_FILE));
    expect(ensureLocalRecoveryKey(dir).id).toBe(first.id);
    expect(fileKekProvider(path.join(root, 'kek-once'), ['user']).current('user').id).toBe(fileKekProvider(path.join(root, 'kek-once'), ['user']).current('user').id);
  });
});
