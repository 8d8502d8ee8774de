/**
 * SQL for the rows of each project whose `column` may start with a prefix, case-insensitively: each
 * project's `(project_id, lower(column) COLLATE "C")` index is read in byte order from the prefix,
 * for at most `limit` entries. The caller keeps those that really start with it
 * (`starts_with(lower(column), lower(prefix))`). `projects`, `prefix` and `limit` are SQL expressions
 * (parameters); the projects come out as `p.id`, the rows as `alias`.
 */
export function identifierPrefixScan(scan: { table: 'wallets' | 'users'; column: string; select: string; projects: string; prefix: string; limit: string; alias: string }): string {
  const { table, column, select, projects, prefix, limit, alias } = scan;
  return `unnest(${projects}) AS p(id) CROSS JOIN LATERAL (
           SELECT ${select} FROM ${table}
            WHERE project_id = p.id AND lower(${column}) COLLATE "C" >= lower(${prefix})
            ORDER BY lower(${column}) COLLATE "C" LIMIT ${limit}) ${alias}`;
}
