/**
 * Malformed inputs for the OpenAPI fuzz test, derived from JSON Schemas of the served document and a
 * seeded PRNG: the same seed gives the same inputs. Pure: no app, no database, no network.
 */

export type Schema = Record<string, any>;

export interface Rng {
  /** [0, 1). */
  next(): number;
  /** An integer in [0, n). */
  int(n: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32: small, fast and good enough to spread inputs; not for anything secret. */
export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (items) => items[int(items.length)]!, chance: (p) => next() < p };
}

/** A seed from FUZZ_SEED (decimal or 0x hex), else the fixed default; anything else is an error. */
export function seedFrom(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const seed = Number(value);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new Error(`FUZZ_SEED must be an integer 0..4294967295, got ${value}`);
  return seed;
}

/** Follows `$ref`s into `#/components/schemas`. */
export function resolve(schema: Schema, components: Record<string, Schema>): Schema {
  let current = schema;
  for (let hops = 0; typeof current.$ref === 'string' && hops < 32; hops++) {
    const target = components[current.$ref.replace('#/components/schemas/', '')];
    if (!target) throw new Error(`unresolved ${current.$ref}`);
    current = target;
  }
  return current;
}

const typeOf = (schema: Schema): string | undefined => (Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type);

/** Strings tried, in order, for a string schema with a pattern or format (the first that fits is used). */
const stringCandidates = [
  '1',
  '0x000000000000000000000000000000000000dEaD',
  '0x00',
  '7d444840-9dc0-11d1-b245-5ffdce74fad2',
  '2026-01-01T00:00:00.000Z',
  'org-1',
  'AAAA',
  'a',
];

function fits(value: string, schema: Schema): boolean {
  if (schema.minLength !== undefined && value.length < schema.minLength) return false;
  if (schema.maxLength !== undefined && value.length > schema.maxLength) return false;
  if (schema.format === 'uuid' && !/^[0-9a-f-]{36}$/i.test(value)) return false;
  if (schema.format === 'date-time' && Number.isNaN(Date.parse(value))) return false;
  return schema.pattern === undefined || new RegExp(schema.pattern, 'u').test(value);
}

/**
 * A value that plausibly conforms to `schema` (best effort: patterns are met from a few
 * candidates). Bodies are mutated from it, so each mutation is one defect in an otherwise usual body.
 */
export function sampleValid(schema: Schema, components: Record<string, Schema>, rng: Rng, depth = 0): unknown {
  const s = resolve(schema, components);
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum)) return rng.pick(s.enum);
  if ('default' in s && rng.chance(0.3)) return s.default;
  const alternatives = s.anyOf ?? s.oneOf;
  if (Array.isArray(alternatives)) {
    const usable = alternatives.filter((a: Schema) => resolve(a, components).type !== 'null');
    return sampleValid(rng.pick(usable.length > 0 ? usable : alternatives), components, rng, depth);
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) return sampleValid(s.allOf[0], components, rng, depth);
  switch (typeOf(s) ?? (s.properties ? 'object' : undefined)) {
    case 'string': {
      if (s.pattern === undefined && s.format === undefined) return 'a'.repeat(Math.max(1, s.minLength ?? 1));
      return stringCandidates.find((candidate) => fits(candidate, s)) ?? 'a';
    }
    case 'integer':
    case 'number':
      return Math.max(typeof s.minimum === 'number' ? s.minimum : 1, typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return rng.chance(0.5);
    case 'null':
      return null;
    case 'array': {
      if (depth > 6 || !s.items) return [];
      const count = Math.max(s.minItems ?? 0, rng.chance(0.5) ? 1 : 0);
      return Array.from({ length: count }, () => sampleValid(s.items, components, rng, depth + 1));
    }
    case 'object': {
      const out: Record<string, unknown> = {};
      const required = new Set<string>(s.required ?? []);
      for (const [name, property] of Object.entries<Schema>(s.properties ?? {})) {
        if (depth > 6 && !required.has(name)) continue;
        if (required.has(name) || rng.chance(0.5)) out[name] = sampleValid(property, components, rng, depth + 1);
      }
      return out;
    }
    default:
      return 'a';
  }
}

/** Values of every JSON type but the one at hand, plus the awkward numbers. */
const wrongTypeValues: unknown[] = [null, true, 0, -1, 1.5, '', '1', 'true', [], [1], {}, { a: 1 }];
export const hugeNumbers = ['1e400', '-1e400', '123456789012345678901234567890', '9007199254740993', '-9007199254740993', '1.0000000000000002', '-0', '1e-400'];
export const controlStrings = ['\u0000', 'a\u0001b', '\u001f', 'x\u007f', '\r\n', '\u202e\u0000', '\uffff'];
export const unicodeStrings = ['\u202eRTL', '😀', 'é', '\u0000😀', '\ufeff', 'ａｂｃ', 'İ'];
/** Raw JSON string literals JSON.stringify cannot produce (a lone surrogate). */
export const rawStringLiterals = ['"\\ud800"', '"\\udfff x"', '"\\u0000"'];

/** Nests `leaf` in `depth` arrays or objects. */
export function nest(depth: number, leaf: unknown, kind: 'array' | 'object'): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = kind === 'array' ? [value] : { a: value };
  return value;
}

type Path = Array<string | number>;

/** Every path to a value inside `value` (objects' keys and arrays' indexes), the root excluded. */
export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [];
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
  return entries.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

function setAt(root: unknown, path: Path, value: unknown | typeof REMOVE): unknown {
  const copy = structuredClone(root);
  let node: any = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  const last = path[path.length - 1]!;
  if (value === REMOVE) {
    if (Array.isArray(node)) node.splice(last as number, 1);
    else delete node[last];
  } else node[last] = value;
  return copy;
}

const REMOVE = Symbol('remove');

export interface BodyCase {
  label: string;
  /** The bytes sent; undefined sends no body at all. */
  raw: string | undefined;
  contentType: string | undefined;
}

const json = (label: string, value: unknown): BodyCase => ({ label, raw: JSON.stringify(value), contentType: 'application/json' });

/** A placeholder string replaced in the JSON text after stringify (for numbers and literals JSON.stringify cannot write). */
const RAW = '\u0000RAW\u0000';
function rawAt(label: string, sample: unknown, path: Path, literal: string): BodyCase {
  const text = JSON.stringify(path.length === 0 ? RAW : setAt(sample, path, RAW)).replace(JSON.stringify(RAW), literal);
  return { label, raw: text, contentType: 'application/json' };
}

const describePath = (path: Path) => (path.length === 0 ? '(body)' : path.join('.'));

/**
 * One malformed body for an operation whose request schema is `schema`: a mutation of a sample
 * body chosen by `rng` (kind and place). Some mutations can still conform (an extra key where any
 * key is allowed); the test classifies each request against the document.
 */
export function malformedBody(schema: Schema, components: Record<string, Schema>, rng: Rng): BodyCase {
  const sample = sampleValid(schema, components, rng);
  const paths = pathsOf(sample);
  const anyPath = (): Path => (paths.length > 0 && rng.chance(0.85) ? rng.pick(paths) : []);
  const objectPaths = [[], ...paths].filter((p) => {
    const node = p.reduce<any>((n, k) => n?.[k], sample);
    return typeof node === 'object' && node !== null && !Array.isArray(node);
  });
  const kind = rng.int(14);
  switch (kind) {
    case 0:
      return { label: 'non-JSON body', raw: rng.pick(['{"a":', 'not json', '\u0000', '[1,2', "{'a':1}", '{"a":1}}', '\ufeff{}', 'NaN']), contentType: 'application/json' };
    case 1:
      return { label: 'wrong content-type', raw: JSON.stringify(sample), contentType: rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml', 'application/json-patch+json; charset=utf-16']) };
    case 2:
      return rng.pick<BodyCase>([
        { label: 'empty body', raw: '', contentType: 'application/json' },
        { label: 'no body', raw: undefined, contentType: undefined },
        { label: 'whitespace body', raw: ' \n', contentType: 'application/json' },
      ]);
    case 3:
      return { label: 'a scalar or array instead of the object', raw: rng.pick(['null', '[]', '"string"', '42', 'true', '[{}]', '0']), contentType: 'application/json' };
    case 4: {
      const required = paths.filter((p) => {
        const parent = resolveAt(schema, components, p.slice(0, -1), sample);
        return typeof p[p.length - 1] === 'string' && Array.isArray(parent?.required) && parent.required.includes(p[p.length - 1]);
      });
      if (required.length === 0) return json('unknown field (no required one)', { ...asObject(sample), [rng.pick(['__proto__', 'constructor', 'unknownField', ''])]: 1 });
      const path = rng.pick(required);
      return json(`missing required ${describePath(path)}`, setAt(sample, path, REMOVE));
    }
    case 5: {
      const path = rng.pick(objectPaths);
      const key = rng.pick(['unknownField', '__proto__', 'constructor', 'prototype', 'toString', '', ' ', 'a'.repeat(300), '\u0000']);
      if (key === '__proto__') {
        // JSON.stringify drops an own __proto__ key set by assignment; write it into the text.
        return rawAt(`unknown field __proto__ in ${describePath(path)}`, sample, path, JSON.stringify(path.reduce<any>((n, k) => n[k], sample)).replace(/^\{/, '{"__proto__":{"polluted":1},').replace(/,\}$/, '}'));
      }
      const target = path.reduce<any>((n, k) => n[k], sample);
      return json(`unknown field ${JSON.stringify(key.slice(0, 20))} in ${describePath(path)}`, path.length === 0 ? { ...target, [key]: 'x' } : setAt(sample, path, { ...target, [key]: 'x' }));
    }
    case 6: {
      const path = anyPath();
      const current = path.reduce<any>((n, k) => n?.[k], sample);
      const candidates = wrongTypeValues.filter((v) => typeof v !== typeof current || Array.isArray(v) !== Array.isArray(current));
      const value = rng.pick(candidates);
      return json(`wrong type at ${describePath(path)}: ${JSON.stringify(value)}`, path.length === 0 ? value : setAt(sample, path, value));
    }
    case 7: {
      const path = anyPath();
      const current = path.reduce<any>((n, k) => n?.[k], sample);
      const value = typeof current === 'number' ? String(current) : typeof current === 'string' && /^\d+$/.test(current) ? Number(current) : rng.pick(['1', 1, '0x1', '1e3']);
      return json(`number/string swap at ${describePath(path)}`, path.length === 0 ? value : setAt(sample, path, value));
    }
    case 8: {
      const path = anyPath();
      return rawAt(`huge number at ${describePath(path)}`, sample, path, rng.pick(hugeNumbers));
    }
    case 9: {
      const path = anyPath();
      const size = rng.pick([257, 4_097, 70_000, 300_000]);
      const value = rng.chance(0.5) ? 'a'.repeat(size) : Array.from({ length: Math.min(size, 20_000) }, () => 1);
      return json(`oversize ${typeof value === 'string' ? 'string' : 'array'} (${size}) at ${describePath(path)}`, path.length === 0 ? value : setAt(sample, path, value));
    }
    case 10: {
      const path = anyPath();
      const current = path.reduce<any>((n, k) => n?.[k], sample);
      const bad = rng.pick(controlStrings);
      const value = typeof current === 'string' ? (rng.chance(0.5) ? current + bad : bad + current) : bad;
      return json(`control character at ${describePath(path)}: ${JSON.stringify(bad)}`, path.length === 0 ? value : setAt(sample, path, value));
    }
    case 11: {
      const path = anyPath();
      if (rng.chance(0.5)) return rawAt(`lone surrogate at ${describePath(path)}`, sample, path, rng.pick(rawStringLiterals));
      const value = rng.pick(unicodeStrings);
      return json(`unicode at ${describePath(path)}: ${JSON.stringify(value)}`, path.length === 0 ? value : setAt(sample, path, value));
    }
    case 12: {
      const path = anyPath();
      const depth = rng.pick([65, 66, 100, 1_000, 20_000]);
      // Written as text: JSON.stringify of 20,000 levels would itself overflow.
      const kindOf = rng.chance(0.5) ? 'array' : 'object';
      const text = kindOf === 'array' ? '['.repeat(depth) + ']'.repeat(depth) : '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
      return rawAt(`${kindOf}s nested ${depth} deep at ${describePath(path)}`, sample, path, text);
    }
    default: {
      // Duplicate keys: JSON.parse keeps the last; the first carries a wrong type.
      const text = JSON.stringify(sample);
      const key = paths.length > 0 && typeof paths[0]![0] === 'string' ? (paths[0]![0] as string) : 'a';
      return { label: `duplicate key ${key}`, raw: text.startsWith('{') ? `{${JSON.stringify(key)}:[[[]]],${text.slice(1)}` : text, contentType: 'application/json' };
    }
  }
}

function asObject(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The object schema found by walking `path` through properties and items (undefined past a union). */
function resolveAt(schema: Schema, components: Record<string, Schema>, path: Path, _sample: unknown): Schema | undefined {
  let node: Schema | undefined = resolve(schema, components);
  for (const key of path) {
    if (!node) return undefined;
    node = typeof key === 'number' ? node.items : node.properties?.[key];
    if (node) node = resolve(node, components);
  }
  return node;
}

/** Malformed values for a path parameter, already percent-encoded for the URL (a few are bad escapes on purpose). */
export const pathParamValues = [
  '%00', 'a%01b', '%1F', 'x%7F', '%0A', '%0D%0A', '..%2F..%2Fetc%2Fpasswd', '..', '%2E%2E', '%2F', '%', '%ZZ', '%C0%AF', '%E2%80%AE', '%F0%9F%98%80', '%FF',
  '-1', '0', '1.5', '1e400', '99999999999999999999999999999999', 'null', 'undefined', 'true', '%5B%5D', '%7B%7D', "'%20OR%201%3D1--", '%22', '%5C',
  '7D444840-9DC0-11D1-B245-5FFDCE74FAD2', '7d4448409dc011d1b2455ffdce74fad2', '00000000-0000-0000-0000-000000000000', '7d444840-9dc0-11d1-b245-5ffdce74fad2x',
];

/** A long path parameter; the longest push the request line past Node's 16 KB header limit. */
export function oversizePathParam(rng: Rng): string {
  return rng.pick(['a', '%C3%A9', '0']).repeat(rng.pick([257, 1_000, 2_000, 20_000]));
}

/** Malformed values for a query parameter, percent-encoded. */
export const queryValues = [
  '', '%00', 'a%01', '%7F', '%0A', '-1', '0', '1.5', '1e400', 'abc', 'NaN', 'Infinity', '99999999999999999999999', 'true', 'null', '%5B%5D', '%7B%22a%22%3A1%7D',
  '%E2%80%AE', '%F0%9F%98%80', '%', '%ZZ', '..%2F', 'a'.repeat(300), 'a'.repeat(3_000),
];

/** A query string for `names` (the documented parameters) with one or two of them malformed: values, repeats, brackets, unknowns. */
export function malformedQuery(names: string[], rng: Rng): { label: string; query: string } {
  const target = names.length > 0 ? rng.pick(names) : 'unknown';
  const value = rng.pick(queryValues);
  switch (rng.int(5)) {
    case 0:
      return { label: `${target}=${value.slice(0, 24)}`, query: `${target}=${value}` };
    case 1:
      return { label: `${target} repeated`, query: `${target}=1&${target}=${value}` };
    case 2:
      return { label: `${target}[] bracket`, query: `${target}%5B%5D=${value}&${target}%5Ba%5D=1` };
    case 3:
      return { label: `unknown parameter beside ${target}=${value.slice(0, 24)}`, query: `${target}=${value}&${rng.pick(['unknown', '__proto__', '%00', 'a%01'])}=1` };
    default:
      return { label: `${target} with no value`, query: rng.pick([target, `${target}=`, `&&${target}&&`]) };
  }
}

/** Idempotency-Key header values (fetch allows no control characters but tab in a header). */
export function idempotencyKey(rng: Rng): string | undefined {
  return rng.pick([undefined, undefined, `fuzz-${rng.int(1e9)}`, '', ' ', 'a'.repeat(257), 'a'.repeat(4_000), 'a\tb', 'é', '%00']);
}
