import { z } from 'zod';
import { invalidRequest } from '../errors.ts';

/** Parses `input` with `schema`, turning every validation failure into one 400 INVALID_REQUEST. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const details = result.error.issues.slice(0, 20).map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const first = details[0];
  const message = first
    ? first.path
      ? `Invalid request: ${first.path}: ${first.message}`
      : `Invalid request: ${first.message}`
    : 'Invalid request';
  return fail(message, details);
}

function fail(message: string, details: { path: string; message: string }[]): never {
  throw invalidRequest(message, { details });
}

export const uuidSchema = z.uuid();
