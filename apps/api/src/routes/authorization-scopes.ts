import {
  assignmentHistorySchema,
  assignmentSetSchema,
  bindWalletBody,
  membersSchema,
  replaceAssignmentsBody,
  revisionListQuery,
  walletScopeHistorySchema,
  walletScopeSchema,
  type AuthorizationScopeService,
  errorBodies,
} from '@wallet/domain';
import { defineRoutes, type RouteDef } from '../http/route.ts';
import { authorizationScopesExamples } from './authorization-scopes-examples.ts';

const assignments = '/v1/permissions-v2/authorization-scopes/{authorizationScopeId}/users/{userId}/assignments';
const walletScope = '/v1/permissions-v2/wallets/{walletId}/authorization-scope';
const gated = {
  description: '403 PERMISSIONS_V2_EXTENSION_UNAVAILABLE until the extension is enabled for the project and environment',
  errors: [errorBodies.permissionsExtensionUnavailable],
};
const stale = 'CONFLICT: expectedRevision missing or not the current revision (body has currentRevision); nothing written';

/** Authorization scopes of permissions v2: user assignments and wallet bindings, for the calling key's project and environment. */
export function authorizationScopeRoutes(scopes: AuthorizationScopeService): RouteDef[] {
  return defineRoutes([
    {
      method: 'get',
      path: assignments,
      operationId: 'getScopeAssignments',
      examples: authorizationScopesExamples.getScopeAssignments,
      summary: "A user's assignments in a scope",
      description: 'The roles and attributes assigned to the user in the authorization scope, and their revision (0 with no assignments before the first write).',
      tag: 'Permissions',
      responses: { 200: { description: 'The current set', schema: assignmentSetSchema } },
      handler: async ({ caller, params }) => ({ status: 200, body: await scopes.getAssignments(caller, params.authorizationScopeId!, params.userId!) }),
    },
    {
      method: 'put',
      path: assignments,
      operationId: 'replaceScopeAssignments',
      examples: authorizationScopesExamples.replaceScopeAssignments,
      summary: "Replace a user's assignments in a scope",
      description: "Replaces the user's whole assignment set in the scope (an empty array removes all). `expectedRevision` must be the current revision (0 before the first write); a stale one is 409 `CONFLICT` with `currentRevision`, and nothing is written. While the permissions v2 extension is off for the project and environment, it answers 403 `PERMISSIONS_V2_EXTENSION_UNAVAILABLE` before any other check.",
      tag: 'Permissions',
      body: replaceAssignmentsBody,
      responses: { 200: { description: 'The new set and its revision', schema: assignmentSetSchema }, 403: gated, 409: { description: stale } },
      handler: async ({ caller, params, body }) => ({ status: 200, body: await scopes.replaceAssignments(caller, params.authorizationScopeId!, params.userId!, body) }),
    },
    {
      method: 'get',
      path: `${assignments}/history`,
      operationId: 'listScopeAssignmentHistory',
      examples: authorizationScopesExamples.listScopeAssignmentHistory,
      summary: 'Assignment revisions, newest first',
      description: "Every revision of the user's assignments in the scope: who wrote it, when, and the whole set.",
      tag: 'Permissions',
      query: revisionListQuery,
      responses: { 200: { description: 'A page of revisions', schema: assignmentHistorySchema } },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await scopes.assignmentHistory(caller, params.authorizationScopeId!, params.userId!, query) }),
    },
    {
      method: 'get',
      path: '/v1/permissions-v2/authorization-scopes/{authorizationScopeId}/members',
      operationId: 'listScopeMembers',
      pathNamesNoObject: true,
      examples: authorizationScopesExamples.listScopeMembers,
      summary: 'Members of a scope',
      description: 'The users with at least one assignment in the scope and their assignments, ordered by user id.',
      tag: 'Permissions',
      query: revisionListQuery,
      responses: { 200: { description: 'A page of members', schema: membersSchema } },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await scopes.members(caller, params.authorizationScopeId!, query) }),
    },
    {
      method: 'get',
      path: walletScope,
      operationId: 'getWalletAuthorizationScope',
      examples: authorizationScopesExamples.getWalletAuthorizationScope,
      summary: 'The scope bound to a wallet',
      description: "The authorization scope the wallet is bound to and the binding's revision (`null` and revision 0 before the first write). A request that needs a conditional approval needs this binding (else 403 `FORBIDDEN`).",
      tag: 'Permissions',
      responses: { 200: { description: 'The binding', schema: walletScopeSchema } },
      handler: async ({ caller, params }) => ({ status: 200, body: await scopes.getWalletScope(caller, params.walletId!) }),
    },
    {
      method: 'put',
      path: walletScope,
      operationId: 'setWalletAuthorizationScope',
      examples: authorizationScopesExamples.setWalletAuthorizationScope,
      summary: 'Bind a wallet to a scope',
      description: 'Binds the wallet to an authorization scope (`authorizationScopeId: null` unbinds). `expectedRevision` must be the current revision (0 before the first write); a stale one is 409 `CONFLICT` with `currentRevision`, and nothing is written. While the permissions v2 extension is off for the project and environment, it answers 403 `PERMISSIONS_V2_EXTENSION_UNAVAILABLE` before any other check.',
      tag: 'Permissions',
      body: bindWalletBody,
      responses: { 200: { description: 'The new binding and its revision', schema: walletScopeSchema }, 403: gated, 409: { description: stale } },
      handler: async ({ caller, params, body }) => ({ status: 200, body: await scopes.setWalletScope(caller, params.walletId!, body) }),
    },
    {
      method: 'get',
      path: `${walletScope}/history`,
      operationId: 'listWalletAuthorizationScopeHistory',
      examples: authorizationScopesExamples.listWalletAuthorizationScopeHistory,
      summary: 'Binding revisions, newest first',
      description: "Every revision of the wallet's binding: who wrote it, when, and the scope (`null` when unbound).",
      tag: 'Permissions',
      query: revisionListQuery,
      responses: { 200: { description: 'A page of revisions', schema: walletScopeHistorySchema } },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await scopes.walletScopeHistory(caller, params.walletId!, query) }),
    },
  ]);
}
