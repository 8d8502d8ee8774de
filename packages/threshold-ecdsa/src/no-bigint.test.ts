import { readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The constant-time rule, "no BigInt timing on secret values", enforced over every module the package
 * loads, by the type checker.
 *
 * What proves it. In JavaScript a BigInt exists only through a BigInt literal (`5n`), the `BigInt`
 * global, a BigInt-typed built-in (`DataView.getBigUint64`, `BigInt64Array`, …) or an operation on
 * other BigInts, and TypeScript gives every one of those expressions a type containing `bigint`. So a
 * module in which no expression has a type containing `bigint`, none has type `any` (the one way a
 * BigInt could flow in untyped), and the `BigInt` global is never named, performs no BigInt
 * arithmetic at all, on secrets or otherwise. The check runs over the transitive closure of the
 * entry point's relative imports (so a helper module cannot hide BigInt behind a non-BigInt
 * signature) and requires that closure not to contain `curve.ts`, the BigInt reference kept for
 * tests and benchmarks. Dependencies: `node:crypto` (native) and `tiny-secp256k1` (libsecp256k1 in
 * WASM, scalars passed as bytes).
 *
 * What would not prove it: an instrumented run. BigInt operators (`*`, `%`, `+`) cannot be hooked in
 * JavaScript, so patching `BigInt` or `DataView` would miss exactly the arithmetic whose timing leaks;
 * and a regex over the sources misses a BigInt returned by an imported function. The last test shows
 * the checker catching each way BigInt could creep back (the corrupted input this check guards).
 *
 * What remains outside this check (README, "Constant time"): the JIT and the CPU, below the language.
 */
const SRC = dirname(fileURLToPath(import.meta.url));
const ENTRY = join(SRC, 'index.ts');
const REFERENCE = join(SRC, 'curve.ts');

/** Relative imports reachable from `entry` (with an in-memory source for one extra file, for the self-test). */
function closure(program: ts.Program, entry: string): string[] {
  const seen = new Set<string>();
  const stack = [resolve(entry)];
  while (stack.length) {
    const file = stack.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const sf = program.getSourceFile(file);
    if (!sf) throw new Error(`not in the program: ${file}`);
    sf.forEachChild(function visit(node) {
      const spec =
        (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)
          ? node.moduleSpecifier.text
          : ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && ts.isStringLiteral(node.arguments[0]!)
            ? node.arguments[0].text
            : null;
      if (spec?.startsWith('.')) stack.push(resolve(dirname(file), spec));
      node.forEachChild(visit);
    });
  }
  return [...seen].sort();
}

/** Builds one program over src (plus in-memory files, for the self-test); returns the checker of a closure. */
function analyzer(extra: Record<string, string> = {}): (entry: string) => string[] {
  const files = [...readdirSync(SRC).filter((f) => f.endsWith('.ts')).map((f) => join(SRC, f)), ...Object.keys(extra)];
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, allowImportingTsExtensions: true, types: ['node'] };
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, lang, ...rest) => (extra[resolve(name)] !== undefined ? ts.createSourceFile(name, extra[resolve(name)]!, lang, true) : getSourceFile(name, lang, ...rest));
  const fileExists = host.fileExists.bind(host);
  host.fileExists = (name) => extra[resolve(name)] !== undefined || fileExists(name);
  const program = ts.createProgram(files, options, host);
  const checker = program.getTypeChecker();
  return (entry) => {
    const found: string[] = [];
    for (const file of closure(program, entry)) {
      const sf = program.getSourceFile(file)!;
      const where = (node: ts.Node) => `${file.slice(SRC.length + 1)}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
      if (file === REFERENCE) found.push(`${file.slice(SRC.length + 1)}: the BigInt reference is loaded by the package`);
      const visit = (node: ts.Node): void => {
        // types and module specifiers are not values: nothing runs there
        if (ts.isTypeNode(node) || ts.isImportDeclaration(node) || ts.isTypeAliasDeclaration(node) || ts.isInterfaceDeclaration(node)) return;
        if (ts.isExportDeclaration(node)) return;
        if (ts.isBigIntLiteral(node)) found.push(`${where(node)}: BigInt literal ${node.getText()}`);
        else if (ts.isIdentifier(node) && /^(BigInt|BigInt64Array|BigUint64Array)$/.test(node.text)) found.push(`${where(node)}: ${node.text}`);
        else if (ts.isExpression(node) || ts.isIdentifier(node)) {
          const type = checker.getTypeAtLocation(node);
          const flags = (type.isUnion() ? type.types : [type]).reduce((f, t) => f | t.flags, type.flags);
          if (flags & ts.TypeFlags.BigIntLike) found.push(`${where(node)}: bigint expression ${node.getText().slice(0, 60)}`);
          else if (flags & ts.TypeFlags.Any) found.push(`${where(node)}: untyped (any) expression ${node.getText().slice(0, 60)}`);
        }
        node.forEachChild(visit);
      };
      sf.forEachChild(visit);
    }
    return found;
  };
}

describe('constant time: no BigInt in any module the package loads', () => {
  it('the closure of index.ts has no bigint-typed or untyped expression, no BigInt literal or global, and not the BigInt reference', () => {
    expect(analyzer()(ENTRY)).toEqual([]);
  }, 60_000);

  it('the check catches BigInt creeping back: a literal, the global, a BigInt returned by an import, DataView, an untyped value, the reference module', () => {
    const cases: Record<string, string> = {
      literal: 'export const x = 5;\nexport const y = 7n;',
      global: "export const x = (b: Uint8Array) => BigInt('0x' + Buffer.from(b).toString('hex'));",
      'imported bigint': "import { bytesToBig } from './curve.ts';\nexport const x = (b: Uint8Array) => bytesToBig(b) === bytesToBig(b);",
      dataview: 'export const x = (v: DataView) => v.getBigUint64(0) > v.getBigUint64(8);',
      untyped: 'export const x = (s: string) => JSON.parse(s) * 2 === 4;',
      reference: "import { equalBytes } from './curve.ts';\nexport const x = equalBytes;",
      'through a helper': "import { x as helper } from './__creep_dataview__.ts';\nexport const y = (v: DataView): boolean => helper(v);",
      'constant time only': "import * as S from './scalar.ts';\nexport const x = S.toBytes(S.mul(S.random(), S.fromSmall(3)));",
    };
    const file = (name: string) => join(SRC, `__creep_${name.replace(/ /g, '_')}__.ts`);
    const check = analyzer(Object.fromEntries(Object.entries(cases).map(([name, text]) => [file(name), text])));
    for (const name of Object.keys(cases)) {
      const uses = check(file(name));
      if (name === 'constant time only') expect(uses, name).toEqual([]);
      else expect(uses.length, name).toBeGreaterThan(0);
    }
    expect(check(file('reference'))).toContain('curve.ts: the BigInt reference is loaded by the package');
  }, 60_000);
});
