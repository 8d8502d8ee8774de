import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as domain from '@wallet/domain';
import * as pipelineModule from '@wallet/domain/signing/pipeline.ts';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const roots = ['packages/domain/src', 'apps/api/src', 'apps/signer/src'];
const PIPELINE = 'packages/domain/src/signing/pipeline.ts';
const LOCAL_VAULT = 'packages/domain/src/custody/local-vault.ts';
const SIGNER_HANDLERS = 'apps/signer/src/handlers/vault-handlers.ts';
const SIGNER_HANDLERS_INDEX = 'apps/signer/src/handlers/index.ts';
const SELF = path.relative(repo, fileURLToPath(import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(path.join(repo, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(relative);
    return /\.(ts|tsx|mts|cts)$/.test(entry.name) ? [relative] : [];
  });
}

/** Source files (tests included) that name `identifier`, comments stripped. */
function filesNaming(identifier: RegExp): string[] {
  return roots
    .flatMap(sources)
    .filter((file) => file !== SELF)
    .filter((file) => {
      const code = readFileSync(path.join(repo, file), 'utf8')
        .replace(/\/\*[\s\S]*?\*\//g, '')
        .replace(/(^|[^:])\/\/.*$/gm, '$1');
      return identifier.test(code);
    });
}

describe('the signing choke point', () => {
  it('only the pipeline asks the key vault for a wallet signature (and the signer answers it)', () => {
    const files = filesNaming(/\bvault\.sign\(/);
    // The scan sees the pipeline's own call, so an empty result cannot mean a blind scan.
    expect(files).toContain(PIPELINE);
    // share-check.ts: the test signature of new shares over a random payload, before a conversion or
    // refresh writes them; no partner request to decide on, audited by its caller (key-maintenance).
    const allowed = [PIPELINE, SIGNER_HANDLERS, 'packages/domain/src/custody/share-check.ts'];
    expect(files.filter((file) => !allowed.includes(file))).toEqual([]);
  });

  it('only the local vault (the signer process) joins a wallet key (withWalletSecret*)', () => {
    const files = filesNaming(/\bwithWalletSecret(Async)?\b/);
    expect(files).toContain(LOCAL_VAULT);
    // The bundle test names it as a marker it must not find in the API bundle.
    // dkls-import.ts: the signer joins an isolated wallet's key one last time to deal it into threshold shares.
    const allowed = [LOCAL_VAULT, 'packages/domain/src/custody/dkls-import.ts', 'packages/domain/src/custody/shares.ts', 'packages/domain/src/custody/shares.test.ts', 'apps/api/src/custody/api-bundle.test.ts'];
    expect(files.filter((file) => !allowed.includes(file))).toEqual([]);
  });

  it('no API source outside tests loads the key-holding vault', () => {
    const files = filesNaming(/custody\/local-vault/);
    expect(files).toContain(SIGNER_HANDLERS_INDEX);
    const apiProduction = files.filter((file) => file.startsWith('apps/api/src/') && !/\.test\.ts$/.test(file) && !file.startsWith('apps/api/src/testing/'));
    expect(apiProduction).toEqual([]);
  });

  it('the domain package exports neither the key-holding vault nor the share joining', () => {
    for (const name of ['createLocalKeyVault', 'withWalletSecret', 'withWalletSecretAsync', 'joinShares', 'decryptShare', 'signWithServiceKeyRow', 'openEnclavePrivateKey']) {
      expect(domain, name).not.toHaveProperty(name);
    }
    expect(pipelineModule).toHaveProperty('createSigningPipeline');
  });
});
