import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';

/** The driver behind each open Database, so `deploy(db)` can reach it without widening the type. */
export const driverHandles = new WeakMap<object, PGlite | pg.Pool>();
