import pino, { type DestinationStream, type Logger } from 'pino';

/**
 * Structured JSON logs. Nothing secret is ever passed to the logger; as a second line of defence
 * the headers and fields that could carry one are redacted.
 */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    {
      level,
      base: undefined,
      redact: {
        paths: ['apiKey', 'secret', '*.apiKey', '*.secret', 'headers["x-api-key"]', 'req.headers["x-api-key"]'],
        censor: '[redacted]',
      },
    },
    destination,
  );
}

export type { Logger };
