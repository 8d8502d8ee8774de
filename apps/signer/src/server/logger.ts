/**
 * JSON-lines logger of the signer process (one object per line on stdout), level from LOG_LEVEL.
 * Error objects passed in fields are reduced to their name and code: an error's message or stack
 * may quote key material, so it never reaches the log through this logger by accident.
 */
export interface SignerLogger {
  debug?(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
const rank: Record<LogLevel, number> = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60, silent: Infinity };

function safe(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const code = (value as NodeJS.ErrnoException).code;
    return { name: value.name, ...(typeof code === 'string' ? { code } : {}) };
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
}

export function createLogger(options: { level?: LogLevel; write?: (line: string) => void; base?: Record<string, unknown> } = {}): SignerLogger & { debug(obj: object, msg?: string): void } {
  const threshold = rank[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const log = (level: LogLevel) => (obj: object, msg?: string) => {
    if (rank[level] < threshold) return;
    let line: string;
    try {
      line = JSON.stringify({ level, time: new Date().toISOString(), ...options.base, ...obj, ...(msg !== undefined ? { msg } : {}) }, safe);
    } catch {
      line = JSON.stringify({ level, time: new Date().toISOString(), msg: msg ?? 'unserializable log entry' });
    }
    write(`${line}\n`);
  };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

export function parseLogLevel(text: string | undefined): LogLevel {
  if (text === undefined || text === '') return 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(text)) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  return text as LogLevel;
}
