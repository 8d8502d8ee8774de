/**
 * One client's RPC connection (ALPN wallet-signer/2 or /1, frames.ts): every frame is a call,
 * answered by a frame of the same id when its handler finishes, its byte strings in the form the
 * connection agreed on. Answers finished in the same event-loop turn
 * (a log group commit releases several signatures at once) leave in one write.
 *
 * The error rule: a handler's SignerError is answered as it is (its author chose what it says).
 * Anything else is answered 500 SIGNER_INTERNAL with a fixed message, and logged as the error's
 * name (and code when it is an ERR_-style identifier) plus the first stack frame: never its
 * message nor the whole stack, since a message may quote a key, a share or a plaintext. A handler
 * that needs more in the log must log it itself, having checked it is not secret.
 */
import { randomUUID } from 'node:crypto';
import type { TLSSocket } from 'node:tls';
import { createFrameReader, createFrameWriter, decodePayload, encodeFrame, type PayloadForm } from '../transport/frames.ts';
import { HEALTH_METHOD, METHOD_PATTERN, REQUEST_ID_PATTERN } from '../transport/protocol.ts';
import { isSignerError, loggableError } from './errors.ts';
import type { MetricsRegistry, RequestOutcome } from './metrics.ts';
import type { ServerLogger, SignerHandler } from './server.ts';

export interface RpcServing {
  handlers: Record<string, SignerHandler>;
  logger: ServerLogger;
  metrics: MetricsRegistry;
  maxBodyBytes: number;
  health(): Record<string, unknown>;
}

export interface ConnectedClient {
  name: string | undefined;
  allowed: boolean;
}

export interface RpcConnection {
  /** Ends the connection once no call is in flight (now, when none is). */
  endWhenIdle(): void;
  destroy(): void;
}

type Answer = { status: number; result?: unknown; error?: { code: string; message: string; details?: Record<string, unknown> } };

const INTERNAL: Answer = { status: 500, error: { code: 'SIGNER_INTERNAL', message: 'internal signer error' } };

export function serveRpcConnection(socket: TLSSocket, client: ConnectedClient, form: PayloadForm, serving: RpcServing): RpcConnection {
  const { handlers, logger, metrics } = serving;
  let inFlight = 0;
  let ending = false;
  const writeFrame = createFrameWriter(socket);

  const send = (id: number, answer: Answer) => {
    if (socket.destroyed || !socket.writable) return;
    let frame: Buffer;
    try {
      frame = encodeFrame(id, answer, form);
    } catch (error) {
      logger.error({ ...loggableError(error) }, 'signer could not encode an answer');
      frame = encodeFrame(id, INTERNAL, form);
    }
    writeFrame(frame);
  };

  const record = (label: string, outcome: RequestOutcome, started: bigint) => metrics.recordRequest(label, outcome, Number(process.hrtime.bigint() - started) / 1e9);

  const call = async (id: number, method: string, requestId: string, params: unknown, started: bigint) => {
    inFlight++;
    try {
      const result = await handlers[method]!(params, { requestId, client: client.name! });
      record(method, 'ok', started);
      send(id, { status: 200, result: result ?? null });
    } catch (error) {
      if (isSignerError(error)) {
        const status = Number.isInteger(error.status) && error.status >= 400 && error.status <= 599 ? error.status : 400;
        record(method, 'refused', started);
        send(id, { status, error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } });
      } else {
        logger.error({ method, requestId, ...loggableError(error) }, 'signer handler failed');
        record(method, 'error', started);
        send(id, INTERNAL);
      }
    } finally {
      inFlight--;
      if (ending && inFlight === 0) socket.end();
    }
  };

  const onFrame = (id: number, payload: Buffer) => {
    const started = process.hrtime.bigint();
    if (!client.allowed) {
      send(id, { status: 403, error: { code: 'SIGNER_CLIENT_NOT_ALLOWED', message: 'this client certificate is not allowed to use the signer' } });
      return;
    }
    let request: { method?: unknown; requestId?: unknown; params?: unknown };
    try {
      request = decodePayload(payload) as typeof request;
      if (typeof request !== 'object' || request === null || Array.isArray(request) || typeof request.method !== 'string') throw new Error('not a call');
    } catch {
      record('_unknown', 'bad_request', started);
      send(id, { status: 400, error: { code: 'BAD_REQUEST', message: 'a frame must hold a JSON object {"method": ..., "params": ...}' } });
      return;
    }
    const method = request.method as string;
    if (method === HEALTH_METHOD) {
      send(id, { status: 200, result: serving.health() });
      return;
    }
    if (!METHOD_PATTERN.test(method) || !Object.hasOwn(handlers, method)) {
      record('_unknown', 'unknown_method', started);
      send(id, { status: 404, error: { code: 'UNKNOWN_METHOD', message: 'unknown signer method' } });
      return;
    }
    const requestId = typeof request.requestId === 'string' && REQUEST_ID_PATTERN.test(request.requestId) ? request.requestId : randomUUID();
    void call(id, method, requestId, request.params, started);
  };

  const onOversize = (id: number) => {
    record('_unknown', 'bad_request', process.hrtime.bigint());
    send(id, { status: 413, error: { code: 'BODY_TOO_LARGE', message: `request body above ${serving.maxBodyBytes} bytes` } });
  };

  const read = createFrameReader(serving.maxBodyBytes, { frame: onFrame, oversize: onOversize });
  socket.on('data', read);
  socket.on('error', () => {
    /* the client went away; its calls' answers have nowhere to go */
  });

  return {
    endWhenIdle() {
      ending = true;
      if (inFlight === 0) socket.end();
    },
    destroy: () => socket.destroy(),
  };
}
