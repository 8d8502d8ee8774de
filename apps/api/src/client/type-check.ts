import { fileURLToPath } from 'node:url';
import path from 'node:path';
import ts from 'typescript';

/**
 * Test-only: type-checks TypeScript sources held in memory with the repository's compiler options
 * (tsconfig.base.json: strict, noUncheckedIndexedAccess, NodeNext), as a partner's program would
 * be. The sources live in a folder that exists only in memory inside this package, so their
 * imports (`openapi-fetch`, `@types/node`) resolve from the repository's node_modules. All files
 * are checked in one program; the answer is each file's diagnostics.
 */

const here = path.dirname(fileURLToPath(import.meta.url));
const VIRTUAL_DIR = path.join(here, '.in-memory-program');
const BASE_CONFIG = fileURLToPath(new URL('../../../../tsconfig.base.json', import.meta.url));

function repositoryCompilerOptions(): ts.CompilerOptions {
  const { config, error } = ts.readConfigFile(BASE_CONFIG, (file) => ts.sys.readFile(file));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const { options, errors } = ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(BASE_CONFIG));
  if (errors.length > 0) throw new Error(errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, '\n')).join('\n'));
  return { ...options, noEmit: true };
}

const formatHost: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (name) => name,
  getCurrentDirectory: () => VIRTUAL_DIR,
  getNewLine: () => '\n',
};

export interface FileDiagnostics {
  /** TypeScript's error codes, e.g. 2339 for a property the type does not have. */
  codes: number[];
  /** The diagnostics as tsc prints them (file:line:col - error TSnnnn: message), '' when none. */
  text: string;
}

/** Type-checks `files` (name → source, e.g. `{ 'program.ts': '…' }`) together; their diagnostics by name. */
export function typeCheck(files: Record<string, string>): Record<string, FileDiagnostics> {
  const options = repositoryCompilerOptions();
  const inMemory = new Map(Object.entries(files).map(([name, source]) => [path.join(VIRTUAL_DIR, name), source]));
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile, directoryExists } = host;
  host.directoryExists = (name) => name === VIRTUAL_DIR || (directoryExists?.call(host, name) ?? true);
  host.fileExists = (name) => inMemory.has(name) || fileExists.call(host, name);
  host.readFile = (name) => inMemory.get(name) ?? readFile.call(host, name);
  host.getSourceFile = (name, languageVersion, ...rest) => {
    const source = inMemory.get(name);
    return source === undefined ? getSourceFile.call(host, name, languageVersion, ...rest) : ts.createSourceFile(name, source, languageVersion, true);
  };
  const program = ts.createProgram({ rootNames: [...inMemory.keys()], options, host });
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  if (global.length > 0) throw new Error(ts.formatDiagnostics(global, formatHost));
  const result: Record<string, FileDiagnostics> = {};
  for (const name of inMemory.keys()) {
    const sourceFile = program.getSourceFile(name);
    if (!sourceFile) throw new Error(`the program did not load ${name}`);
    const diagnostics = [...program.getSyntacticDiagnostics(sourceFile), ...program.getSemanticDiagnostics(sourceFile)];
    result[path.relative(VIRTUAL_DIR, name)] = { codes: diagnostics.map((d) => d.code), text: ts.formatDiagnostics(diagnostics, formatHost) };
  }
  return result;
}
