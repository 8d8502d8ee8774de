import { z } from 'zod';
import { invalidRequest, type ApiError } from '../errors.ts';

/** Parses `input` with `schema`, turning every validation failure into one 400 INVALID_REQUEST. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw validationError(result.error);
}

/** The 400 INVALID_REQUEST of a failed zod parse, the same whichever transport parsed the input. */
export function validationError(error: z.ZodError): ApiError {
  const details = error.issues.slice(0, 20).map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const first = details[0];
  const message = first
    ? first.path
      ? `Invalid request: ${first.path}: ${first.message}`
      : `Invalid request: ${first.message}`
    : 'Invalid request';
  return invalidRequest(message, { details });
}

/** A 400 INVALID_REQUEST about one field found outside a schema (e.g. a rule that needs the chain), with the same `details`. */
export function fieldError(path: string, message: string): ApiError {
  return invalidRequest(`Invalid request: ${path}: ${message}`, { details: [{ path, message }] });
}

export const uuidSchema = z.uuid();

/** C0 controls and DEL: never part of an identifier, and PostgreSQL refuses U+0000 in text (SQLSTATE 22021). */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
export const CONTROL_CHARACTER_MESSAGE = 'must not contain control characters';

export const hasControlCharacter = (value: string) => CONTROL_CHARACTER.test(value);

/** A string naming something (an id, an address, a user identifier): no control characters (a pattern, so OpenAPI shows it). */
export const identifierString = () => z.string().regex(/^[^\u0000-\u001f\u007f]*$/, CONTROL_CHARACTER_MESSAGE);

