// `node --import ./record-modules.mjs`: appends the URL of every module the process resolves
// (ESM imports, including CommonJS packages imported from ESM) to RECORD_MODULES_FILE. Tests only.
import { register } from 'node:module';

register('./record-modules-hooks.mjs', import.meta.url, { data: { file: process.env.RECORD_MODULES_FILE } });
