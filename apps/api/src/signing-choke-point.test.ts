import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as domain from '@wallet/domain';
import * as pipelineModule from '@wallet/domain/signing/pipeline.ts';
import { describe, expect, it } from 'vitest';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../..');
const roots = ['packages/domain/src', 'apps/api/src'];
const PIPELINE = 'packages/domain/src/signing/pipeline.ts';
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
  it('only the pipeline module names signWithWallet', () => {
    const files = filesNaming(/\bsignWithWallet\b/);
    // The scan sees the pipeline's own definition, so an empty result cannot mean a blind scan.
    expect(files).toContain(PIPELINE);
    expect(files.filter((file) => file !== PIPELINE)).toEqual([]);
  });

  it('only the pipeline joins a wallet key (withWalletSecret*) outside custody', () => {
    const files = filesNaming(/\bwithWalletSecret(Async)?\b/);
    expect(files).toContain(PIPELINE);
    const allowed = [PIPELINE, 'packages/domain/src/custody/shares.ts', 'packages/domain/src/custody/shares.test.ts'];
    expect(files.filter((file) => !allowed.includes(file))).toEqual([]);
  });

  it('signWithWallet is exported neither by the pipeline module nor by the package', () => {
    expect(pipelineModule).not.toHaveProperty('signWithWallet');
    expect(domain).not.toHaveProperty('signWithWallet');
    expect(pipelineModule).toHaveProperty('createSigningPipeline');
  });
});
