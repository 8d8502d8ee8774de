import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../config.ts';

/** The README's Quickstart: its shell blocks in order, as written. */
export function quickstartBlocks(readmePath = path.join(repoRoot, 'README.md')): string[] {
  const readme = readFileSync(readmePath, 'utf8');
  const start = readme.indexOf('\n## Quickstart\n');
  if (start < 0) throw new Error('the README has no "## Quickstart" section');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

/**
 * What a documented output promises, read from the comment after a command (`# {"id","status":"confirmed",…}`,
 * possibly after a status or a few words): the keys it names, and the values it spells out. A value ending
 * in `…` promises its beginning only.
 */
export interface DocumentedShape {
  comment: string;
  keys: string[];
  values: Record<string, string>;
}

/** The documented output shapes of the shell lines, in order; lines inside a here-document are not commands. */
export function documentedShapes(script: string): DocumentedShape[] {
  const shapes: DocumentedShape[] = [];
  let hereDocEnd: string | null = null;
  for (const line of script.split('\n')) {
    if (hereDocEnd) {
      if (line.trim() === hereDocEnd) hereDocEnd = null;
      continue;
    }
    hereDocEnd = /<<'?(\w+)'?/.exec(line)?.[1] ?? null;
    const comment = /(?:^|\s)#\s(.*)$/.exec(line)?.[1];
    if (!comment || !comment.includes('{')) continue;
    const object = comment.slice(comment.indexOf('{'), comment.lastIndexOf('}') + 1);
    const { keys, values } = topLevel(object);
    shapes.push({ comment, keys, values });
  }
  return shapes;
}

/** The keys an object's comment names at its top level, and the string values it spells out there. */
function topLevel(object: string): { keys: string[]; values: Record<string, string> } {
  let depth = 0;
  let outer = '';
  for (const char of object) {
    if (char === '{' || char === '[') depth += 1;
    if (depth === 1) outer += char;
    else if (depth === 2 && (char === '{' || char === '[')) outer += '…';
    if (char === '}' || char === ']') depth -= 1;
  }
  const keys = [...outer.matchAll(/(?<!:\s*)"(\w+)"(?=\s*[,:}])/g)].map((match) => match[1]!);
  const values = Object.fromEntries([...outer.matchAll(/"(\w+)":"([^"]*)"/g)].map((match) => [match[1]!, match[2]!]));
  return { keys, values };
}

/** Why `output` does not have the documented shape, or null when it has. */
export function shapeMismatch(output: Record<string, unknown>, shape: DocumentedShape): string | null {
  for (const key of shape.keys) if (!(key in output)) return `no "${key}" in ${JSON.stringify(output)} (documented: ${shape.comment})`;
  for (const [key, value] of Object.entries(shape.values)) {
    const actual = String(output[key]);
    const matches = value.endsWith('…') ? actual.startsWith(value.slice(0, -1)) : actual === value;
    if (!matches) return `"${key}" is ${JSON.stringify(output[key])}, documented ${JSON.stringify(value)} (${shape.comment})`;
  }
  return null;
}
