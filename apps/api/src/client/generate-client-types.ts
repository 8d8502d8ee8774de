/** `npm run client:generate`: rewrites @wallet/client's generated types from the current OpenAPI document. */
import { writeFileSync } from 'node:fs';
import { CLIENT_TYPES_FILE, clientTypesRelativePath, generateClientTypes } from './client-types.ts';

writeFileSync(CLIENT_TYPES_FILE, await generateClientTypes());
console.log(`wrote ${clientTypesRelativePath}`);
