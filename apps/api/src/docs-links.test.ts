import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './config.ts';

// The README and docs/*.md link each other by relative paths and #anchors. A renamed heading or a
// moved file breaks such a link silently on GitHub, so every one is checked here against the files.

const docsDir = path.join(repoRoot, 'docs');
const pages = ['README.md', ...readdirSync(docsDir).filter((name) => name.endsWith('.md')).sort().map((name) => `docs/${name}`)];

/** The text outside fenced code blocks and inline code, where headings and links live. */
function prose(markdown: string): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (line.startsWith('```')) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`[^`]*`/g, (code) => (code.length > 2 ? 'x' : ''));
  });
}

/** GitHub's anchors: the heading's text lower-cased, punctuation but `-` and `_` dropped, spaces as `-`; repeats get -1, -2… */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const result = new Set<string>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const heading = !fenced && /^#{1,6} (.*)$/.exec(line);
    if (!heading) continue;
    const text = heading[1]!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').trim();
    const slug = text.toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    result.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return result;
}

/** Every relative link target of a page (web links and mail addresses are not ours to check). */
function relativeLinks(markdown: string): string[] {
  const targets: string[] = [];
  for (const line of prose(markdown)) {
    for (const match of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!;
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target)) targets.push(target);
    }
  }
  return targets;
}

/** Why a link from `page` does not resolve, or null when it does. */
function brokenReason(page: string, target: string): string | null {
  const [file, anchor] = target.split('#', 2) as [string, string | undefined];
  const resolved = file === '' ? path.join(repoRoot, page) : path.resolve(path.dirname(path.join(repoRoot, page)), decodeURI(file));
  if (!existsSync(resolved)) return `${target}: no such file`;
  if (anchor === undefined) return null;
  if (!resolved.endsWith('.md') || statSync(resolved).isDirectory()) return `${target}: an anchor into a file that is not markdown`;
  if (!anchors(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor))) return `${target}: no heading with the anchor #${anchor}`;
  return null;
}

describe('documentation links', () => {
  it('computes anchors the way GitHub does', () => {
    const slugs = anchors('# Policies: console authoring\n## tRPC (`/trpc`) and GraphQL\n```sh\n# not a heading\n```\n## Soak_test x-y\n## Soak_test x-y\n');
    expect([...slugs]).toEqual(['policies-console-authoring', 'trpc-trpc-and-graphql', 'soak_test-x-y', 'soak_test-x-y-1']);
  });

  it.each(pages)('%s links only to files and headings that exist', (page) => {
    const markdown = readFileSync(path.join(repoRoot, page), 'utf8');
    const broken = relativeLinks(markdown).map((target) => brokenReason(page, target)).filter((reason) => reason !== null);
    expect(broken).toEqual([]);
  });

  it('the README maps every docs file', () => {
    const linked = new Set(relativeLinks(readFileSync(path.join(repoRoot, 'README.md'), 'utf8')).map((target) => target.split('#')[0]));
    expect(pages.filter((page) => page !== 'README.md' && !linked.has(page))).toEqual([]);
  });
});
