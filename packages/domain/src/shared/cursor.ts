import { invalidRequest } from '../errors.ts';

/** Opaque keyset cursor over (createdAt desc, id desc). */
export interface KeysetPosition {
  createdAt: Date;
  id: string;
}

export function encodeCursor(position: KeysetPosition): string {
  return Buffer.from(`${position.createdAt.toISOString()}|${position.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): KeysetPosition {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const [iso, id, ...rest] = text.split('|');
  const createdAt = new Date(iso ?? '');
  if (rest.length > 0 || !id || !/^[0-9a-f-]{36}$/.test(id) || Number.isNaN(createdAt.getTime())) {
    throw invalidRequest('Invalid request: cursor: not a cursor returned by this list');
  }
  return { createdAt, id };
}

export interface Page<T> {
  data: T[];
  pagination: { cursor: string | null; hasMore: boolean; limit: number };
}

/**
 * One page of a keyset list: reads one row more than `limit` to learn whether another page
 * follows, and hands out the cursor of the page's last row.
 */
export async function keysetPage<Row extends KeysetPosition, View>(
  input: { cursor?: string; limit: number },
  read: (after: KeysetPosition | undefined, take: number) => Promise<Row[]>,
  toView: (row: Row) => View,
): Promise<Page<View>> {
  const rows = await read(input.cursor ? decodeCursor(input.cursor) : undefined, input.limit + 1);
  const hasMore = rows.length > input.limit;
  const page = rows.slice(0, input.limit);
  const last = page.at(-1);
  return {
    data: page.map(toView),
    pagination: { cursor: hasMore && last ? encodeCursor(last) : null, hasMore, limit: input.limit },
  };
}
