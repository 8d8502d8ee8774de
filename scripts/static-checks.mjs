// `npm test`'s first step: lint and the typechecks side by side (each is CPU-bound and mostly
// single-threaded, and on a 2-core machine one after the other cost over three minutes), and the
// dependency licence check and the Node-version check with their tests (scripts/licences.test.mjs,
// scripts/node-versions.test.mjs, about a second). All always run to the end; the step fails when
// any does, with its output.
// `--alongside "<command>"` runs that command (a shell command line) at the same time, e.g. the
// test suites that mostly wait on their devnets, and fails the step when it fails too.
import { spawn } from 'node:child_process';

const run = (command, args) =>
  new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', shell: process.platform === 'win32' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', () => resolve(1));
  });

const alongsideAt = process.argv.indexOf('--alongside');
const alongside = alongsideAt > 0 ? process.argv[alongsideAt + 1] : undefined;
const [licences, lint, typecheck, other] = await Promise.all([
  run(process.execPath, ['--test', '--test-reporter=spec', 'scripts/licences.test.mjs', 'scripts/node-versions.test.mjs']),
  run('npm', ['run', '--silent', 'lint']),
  run('turbo', ['run', 'typecheck', '--concurrency=2']),
  alongside ? new Promise((resolve) => {
    const child = spawn(alongside, { stdio: 'inherit', shell: true });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', () => resolve(1));
  }) : 0,
]);
if (licences !== 0) console.error('static checks: the licence or Node-version checks (scripts/*.test.mjs) failed');
if (lint !== 0) console.error('static checks: npm run lint failed');
if (typecheck !== 0) console.error('static checks: the typecheck failed');
if (other !== 0) console.error(`static checks: ${alongside} failed`);
process.exit(licences !== 0 || lint !== 0 || typecheck !== 0 || other !== 0 ? 1 : 0);
