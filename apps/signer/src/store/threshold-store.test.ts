import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openThresholdStore, THRESHOLD_FILE } from './threshold-store.ts';

const id = (n: number) => n.toString(16).padStart(64, '0');
const thrown = (f: () => unknown): unknown => {
  try {
    f();
  } catch (error) {
    return error;
  }
  return undefined;
};

describe("the signer's threshold ECDSA store", () => {
  const dirs: string[] = [];
  const dir = () => {
    const made = mkdtempSync(path.join(tmpdir(), 'signer-threshold-'));
    dirs.push(made);
    return made;
  };
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('keeps the current OT setup and its abort across a reopen, and an older store\'s used presignatures; a used id is refused', async () => {
    const at = dir();
    const store = await openThresholdStore(at);
    await store.recordSetup('w1', id(1));
    await store.markUnusable('w1', id(1));
    await store.recordSetup('w2', id(2));
    store.claimPresignature(id(9));
    expect(thrown(() => store.claimPresignature(id(9)))).toMatchObject({ code: 'DKLS_PRESIGNATURE_USED', status: 409 });
    await store.close();
    // What a store of an earlier release recorded of a presignature's use.
    appendFileSync(path.join(at, THRESHOLD_FILE), `${JSON.stringify({ kind: 'presignature-used', walletId: 'w2', id: id(8), time: 't' })}\n`);

    const reopened = await openThresholdStore(at);
    expect(reopened.setupOf('w1')).toEqual({ otSetupId: id(1), usable: false });
    expect(reopened.setupOf('w2')).toEqual({ otSetupId: id(2), usable: true });
    expect(reopened.setupOf('w3')).toBeNull();
    expect(thrown(() => reopened.claimPresignature(id(8)))).toMatchObject({ code: 'DKLS_PRESIGNATURE_USED' });
    expect(thrown(() => reopened.claimPresignature(id(10)))).toBeUndefined();
    // An abort under an older setup does not touch the current one; a new setup is usable again.
    await reopened.markUnusable('w2', id(7));
    expect(reopened.setupOf('w2')?.usable).toBe(true);
    await reopened.recordSetup('w1', id(3));
    expect(reopened.setupOf('w1')).toEqual({ otSetupId: id(3), usable: true });
    await reopened.close();
    expect(readFileSync(path.join(at, THRESHOLD_FILE), 'utf8').trim().split('\n')).toHaveLength(6);
  });

  it('cuts a torn last line, and refuses to open over a line that is not a record', async () => {
    const at = dir();
    const store = await openThresholdStore(at);
    await store.recordSetup('w1', id(1));
    await store.close();
    appendFileSync(path.join(at, THRESHOLD_FILE), '{"kind":"presignature-used","walletId":"w1","id":"00');
    const repaired = await openThresholdStore(at);
    expect(repaired.setupOf('w1')).toEqual({ otSetupId: id(1), usable: true });
    await repaired.close();
    writeFileSync(path.join(at, THRESHOLD_FILE), '{"kind":"ot-setup","walletId":"w1","otSetupId":"not-hex","time":"t"}\n');
    await expect(openThresholdStore(at)).rejects.toThrow(/line 1 is not a threshold record/);
  });

  it('refuses ids that are not 32 bytes of hex', async () => {
    const store = await openThresholdStore(dir());
    await expect(store.recordSetup('w1', 'abc')).rejects.toMatchObject({ code: 'INVALID_PARAMS' });
    expect(thrown(() => store.claimPresignature('abc'))).toMatchObject({ code: 'INVALID_PARAMS' });
    await store.close();
  });
});
