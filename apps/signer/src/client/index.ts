/**
 * What the API imports to reach the signer (`@wallet/signer/client`): the client, its settings
 * reader and the local supervisor. Nothing here, nor anything it imports, touches wallet keys or
 * KEKs, nor the signer's handlers (client.test.ts checks the import graph).
 */
export { createSignerClient, SignerRefusedError, SignerUnavailableError, type SignerClient, type SignerClientOptions, type SignerHealth } from './client.ts';
export { signerClientSettings, type SignerClientSettings } from './settings.ts';
export { startSupervisedSigner, type SupervisedSigner, type SupervisorLogger, type SupervisorOptions } from './supervisor.ts';
/** The wire format, for tools that read or relay it (frames.ts). */
export { createFrameReader, decodePayload, encodeFrame, type PayloadForm } from '../transport/frames.ts';
export { RPC_ALPN, RPC_ALPN_JSON, RPC_ALPNS } from '../transport/protocol.ts';
