/**
 * The policy editor's draft is JSON text that lives in the browser until it is activated. These
 * pure helpers read it: `parseDraft` (with the line and column of a syntax error) and
 * `locateJsonPath`, which finds where a problem's dotted path (`rules.0.condition.value`) sits in
 * the text so the editor can select it.
 */

export type DraftParse = { ok: true; value: unknown } | { ok: false; message: string; offset: number | null };

export interface TextRange {
  start: number;
  end: number;
}

/** 1-based line and column of `offset` in `text`. */
export function lineColumnOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return { line, column: offset - before.lastIndexOf('\n') };
}

/** The draft as JSON, or the syntax error with its offset (from our own scanner, so every engine agrees). */
export function parseDraft(text: string): DraftParse {
  if (text.trim() === '') return { ok: false, message: 'The draft is empty', offset: null };
  try {
    scanJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) return { ok: false, message: error.message, offset: error.offset };
    throw error;
  }
  return { ok: true, value: JSON.parse(text) as unknown };
}

/**
 * Where the value at `path` is in `text`; when the path does not exist (a missing key), the
 * closest existing ancestor. Null when the text is not JSON.
 */
export function locateJsonPath(text: string, path: string): TextRange | null {
  let ranges: Map<string, TextRange>;
  try {
    ranges = scanJson(text);
  } catch {
    return null;
  }
  const segments = path === '' ? [] : path.split('.');
  for (let n = segments.length; n >= 0; n--) {
    const range = ranges.get(segments.slice(0, n).join('.'));
    if (range) return range;
  }
  return null;
}

class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

/** A strict JSON scanner recording the text range of every value by its dotted path. */
function scanJson(text: string): Map<string, TextRange> {
  const ranges = new Map<string, TextRange>();
  let at = 0;
  const fail = (message: string): never => {
    const { line, column } = lineColumnOf(text, at);
    const what = at >= text.length ? 'Unexpected end of the text' : message;
    throw new JsonSyntaxError(`${what} at line ${line}, column ${column}`, at);
  };
  const skipSpace = () => {
    while (at < text.length && ' \t\n\r'.includes(text[at]!)) at++;
  };
  const expectChar = (char: string) => {
    if (text[at] !== char) fail(`Expected "${char}"`);
    at++;
  };
  const readString = (): string => {
    const start = at;
    expectChar('"');
    while (at < text.length && text[at] !== '"') {
      if (text[at] === '\\') at++;
      else if (text.charCodeAt(at) < 0x20) fail('Unescaped control character in a string');
      at++;
    }
    expectChar('"');
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (path: string[]) => {
    skipSpace();
    const start = at;
    const char = text[at];
    if (char === '{') {
      at++;
      skipSpace();
      if (text[at] === '}') at++;
      else {
        for (;;) {
          skipSpace();
          if (text[at] !== '"') fail('Expected a key in double quotes');
          const key = readString();
          skipSpace();
          expectChar(':');
          value([...path, key]);
          skipSpace();
          if (text[at] === ',') at++;
          else if (text[at] === '}') {
            at++;
            break;
          } else fail('Expected "," or "}"');
        }
      }
    } else if (char === '[') {
      at++;
      skipSpace();
      if (text[at] === ']') at++;
      else {
        for (let index = 0; ; index++) {
          value([...path, String(index)]);
          skipSpace();
          if (text[at] === ',') at++;
          else if (text[at] === ']') {
            at++;
            break;
          } else fail('Expected "," or "]"');
        }
      }
    } else if (char === '"') readString();
    else {
      const literal = /^(?:true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(at));
      if (!literal) fail('Unexpected character');
      at += literal![0].length;
    }
    ranges.set(path.join('.'), { start, end: at });
  };
  value([]);
  skipSpace();
  if (at < text.length) fail('Unexpected text after the document');
  return ranges;
}

/** Splits a comma- or newline-separated form field into its entries. */
export const listEntries = (value: string): string[] =>
  value
    .split(/[\s,]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
