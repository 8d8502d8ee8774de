import type { RouteExamples } from '../http/route.ts';
import { authorizationScopeId, onlyPage, recordedByApiKey, userId, walletId, walletNotFound } from './example-values.ts';

const financeAssignments = [{ role: 'finance' }];
const updatedAt = '2026-11-25T07:14:03.120Z';

/** A user holding the finance role, at revision 1 of their assignments. */
const scopeMember = { userId, revision: 1, assignments: financeAssignments, updatedAt };
const scopeAssignments = { authorizationScopeId, ...scopeMember };
const walletBinding = { walletId, authorizationScopeId, revision: 1, updatedAt };

/** Request and response examples of the authorization-scopes routes, by operationId (openapi-examples.test.ts validates them). */
export const authorizationScopesExamples = {
  getScopeAssignments: {
    response: {
      200: { summary: 'The current set', value: scopeAssignments },
    },
    request: { summary: "A user's assignments in a scope", parameters: { authorizationScopeId, userId } },
  },
  replaceScopeAssignments: {
    response: {
      200: { summary: 'The new set and its revision', value: scopeAssignments },
      409: {
        summary: 'expectedRevision is not the current revision',
        value: {
          code: 'CONFLICT',
          message: 'expectedRevision 0 is not the current revision 1; read the current state and retry',
          currentRevision: 1,
        },
      },
    },
    request: {
      summary: "Replace a user's assignments in a scope",
      body: { expectedRevision: 0, assignments: financeAssignments },
      parameters: { authorizationScopeId, userId },
    },
  },
  listScopeAssignmentHistory: {
    response: {
      200: {
        summary: 'A page of revisions',
        value: { data: [{ revision: 1, assignments: financeAssignments, ...recordedByApiKey }], pagination: onlyPage(50) },
      },
    },
    request: { summary: 'Assignment revisions, newest first', parameters: { authorizationScopeId, userId } },
  },
  listScopeMembers: {
    response: {
      200: { summary: 'A page of members', value: { authorizationScopeId, data: [scopeMember], pagination: onlyPage(50) } },
    },
    request: { summary: 'Members of a scope', parameters: { authorizationScopeId } },
  },
  getWalletAuthorizationScope: {
    response: {
      200: { summary: 'The binding', value: walletBinding },
      404: walletNotFound,
    },
    request: { summary: 'The scope bound to a wallet', parameters: { walletId } },
  },
  setWalletAuthorizationScope: {
    response: {
      200: { summary: 'The new binding and its revision', value: walletBinding },
      404: walletNotFound,
    },
    request: {
      summary: 'Bind a wallet to a scope',
      body: { expectedRevision: 0, authorizationScopeId },
      parameters: { walletId },
    },
  },
  listWalletAuthorizationScopeHistory: {
    response: {
      200: {
        summary: 'A page of revisions',
        value: { data: [{ revision: 1, authorizationScopeId, ...recordedByApiKey }], pagination: onlyPage(50) },
      },
      404: walletNotFound,
    },
    request: { summary: 'Binding revisions, newest first', parameters: { walletId } },
  },
} satisfies Record<string, RouteExamples>;
