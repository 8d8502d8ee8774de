/**
 * The zod schemas the console's forms validate with: the API's own, from @wallet/domain.
 */
export { signInInput } from '@wallet/domain/staff/service.ts';
export { createProjectApiKeyInput } from '@wallet/domain/console/schemas.ts';
