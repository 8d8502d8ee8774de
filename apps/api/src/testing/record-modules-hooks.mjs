// Module customization hooks of record-modules.mjs (they run on Node's hooks thread).
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  appendFileSync(file, `${result.url}\n`);
  return result;
}
