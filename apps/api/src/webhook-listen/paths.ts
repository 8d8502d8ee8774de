import path from 'node:path';

/**
 * Where `npm run webhooks -- listen` keeps its files in the data directory: the local CA (created
 * once, atomically as a directory) and one record per running listener, naming the endpoint it
 * replaced so that it can be restored after a crash.
 */
export const listenDir = (dataDir: string) => path.join(dataDir, 'webhook-listen');
export const localCaDir = (dataDir: string) => path.join(listenDir(dataDir), 'ca');
/** The CA certificate a local-mode service trusts for webhook receivers (never read outside local mode). */
export const localCaCertFile = (dataDir: string) => path.join(localCaDir(dataDir), 'ca.pem');
export const localCaKeyFile = (dataDir: string) => path.join(localCaDir(dataDir), 'ca-key.pem');
export const listenersDir = (dataDir: string) => path.join(listenDir(dataDir), 'listeners');
export const listenerRecordFile = (dataDir: string, apiKeyId: string) => path.join(listenersDir(dataDir), `${apiKeyId}.json`);
