import type { SignerConfig } from '../config/config.ts';
import type { SignerLimits } from '../limits/limits.ts';
import type { SignerLogger } from '../server/logger.ts';
import type { SignerHandler } from '../server/server.ts';
import type { SignerStore } from '../store/store.ts';

export interface SignerHandlerDeps {
  config: SignerConfig;
  store: SignerStore;
  limits: SignerLimits;
  logger: SignerLogger;
}

export function createSignerHandlers(_deps: SignerHandlerDeps): Record<string, SignerHandler> {
  return {};
}
