import type { SigningContext } from '../signing/pipeline.ts';
import { decoded, type DecodedRequest } from './request-facts-common.ts';

export function decodeStellarRequest(context: SigningContext): DecodedRequest {
  void context;
  return decoded();
}
