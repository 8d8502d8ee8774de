/**
 * What every revision-checked permissions v2 resource shares (scope assignments, wallet bindings,
 * requirement configurations): the scope id's form, the 409 for a stale `expectedRevision`, and
 * the opaque cursor of revision histories.
 */
import { conflict, invalidRequest } from '../errors.ts';
import { fieldError } from '../shared/zod.ts';
import { scopeIdPattern } from './schemas.ts';

export const badCursor = () =>
  invalidRequest('Invalid request: cursor: not a cursor returned by this list', { details: [{ path: 'cursor', message: 'not a cursor returned by this list' }] });

export const encodeRevisionCursor = (revision: number) => Buffer.from(`rev:${revision}`, 'utf8').toString('base64url');

export function decodeRevisionCursor(cursor: string): number {
  const match = /^rev:([1-9]\d{0,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw badCursor();
  return Number(match[1]);
}

/** 409 with the revision to send instead; `expected` undefined = the body named none. */
export function staleRevision(expected: number | undefined, currentRevision: number) {
  const message =
    expected === undefined
      ? `expectedRevision is required: the current revision is ${currentRevision}`
      : `expectedRevision ${expected} is not the current revision ${currentRevision}; read the current state and retry`;
  return conflict(message, { currentRevision });
}

export function checkScopeId(scopeId: string): string {
  if (!scopeIdPattern.test(scopeId)) throw fieldError('authorizationScopeId', 'expected 1-128 characters of A-Z a-z 0-9 . _ : -');
  return scopeId;
}
