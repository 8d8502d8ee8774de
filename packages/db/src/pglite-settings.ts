import { PGlite, type PGliteOptions } from '@electric-sql/pglite';

/**
 * PGlite start parameters for a small embedded database: PostgreSQL's defaults size the buffer
 * pool for a server (128 MB of shared buffers, 4 MB of WAL buffers, 8 MB of temp buffers per
 * session), and the WASM heap keeps whatever it once grew to. One service's data fits in far less.
 */
export const PGLITE_OPTIONS: Pick<PGliteOptions, 'startParams'> = {
  startParams: [
    ...PGlite.defaultStartParams,
    ...['shared_buffers=16MB', 'wal_buffers=1MB', 'temp_buffers=1MB', 'work_mem=2MB', 'maintenance_work_mem=16MB'].flatMap((setting) => ['-c', setting]),
  ],
};
