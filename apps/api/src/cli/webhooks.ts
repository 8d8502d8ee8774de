import { parseArgs } from 'node:util';
import { UsageError, execute, main, reportError } from './run.ts';

const usage = `usage:
  npm run webhooks -- set --key-id API_KEY_ID --url https://… --events a,b [--disabled]
      creates or replaces the API key's webhook endpoint; prints the secret (whsec_…) only when created
  npm run webhooks -- show --key-id API_KEY_ID
  npm run webhooks -- enable --key-id API_KEY_ID | disable --key-id API_KEY_ID
  npm run webhooks -- rotate --key-id API_KEY_ID
      a new secret, printed once; the previous one also signs deliveries for 24 hours
  npm run webhooks -- test --key-id API_KEY_ID
      sends test.ping now; prints the endpoint's status code and latency
  npm run webhooks -- resend --event evt_… | --tx-hash HASH [--key-id API_KEY_ID]
      a fresh attempt (same webhook-id) of the event, or of every event of the transaction hash
  npm run webhooks -- log --event evt_… [--key-id API_KEY_ID]
      every delivery of the event with its attempts (time, status code, latency, error)
  npm run webhooks -- listen --key-id API_KEY_ID [--forward-to http://127.0.0.1:PORT/path] [--port PORT]
      local mode only: receives the key's webhooks on https://127.0.0.1 (a certificate of the local CA
      in DATA_DIR/webhook-listen, which only a local-mode service trusts) until Ctrl-C, then restores
      the key's endpoint (a key without one gets one for every event type, its secret printed once
      on stderr); prints each delivery as one JSON line
      {receivedAt, webhookId, webhookTimestamp, event, forward: {url, statusCode, latencyMs, error} | null},
      forwards the raw body and the webhook headers to --forward-to and answers the service with its
      status (200 without it); status messages go to stderr
  npm run webhooks -- listen --restore [--key-id API_KEY_ID]
      restores the endpoints of listeners that did not stop cleanly (killed); the next listen does it too`;

const options = {
  'key-id': { type: 'string' },
  url: { type: 'string' },
  events: { type: 'string' },
  disabled: { type: 'boolean' },
  event: { type: 'string' },
  'tx-hash': { type: 'string' },
  'forward-to': { type: 'string' },
  port: { type: 'string' },
  restore: { type: 'boolean' },
} as const;

const parsed = (() => {
  try {
    return parseArgs({ allowPositionals: true, options });
  } catch (error) {
    reportError(new UsageError(`${(error as Error).message}\n${usage}`));
    process.exit();
  }
})();
const { positionals, values } = parsed;
const [verb] = positionals;
const apiKeyId = values['key-id'];

if (verb === 'listen' && !values.restore) {
  // Runs until a signal, printing one line per delivery: not a one-line command.
  const { listenCommand } = await import('../webhook-listen/listen.ts');
  try {
    process.exitCode = await listenCommand(
      { apiKeyId, forwardTo: values['forward-to'], port: values.port, restore: false },
      {
        printLine: (line) => process.stdout.write(`${JSON.stringify(line)}\n`),
        status: (message) => process.stderr.write(`webhooks listen: ${message}\n`),
      },
    );
  } catch (error) {
    reportError(error);
  }
  // The service's keep-alive connections of the commands above would hold the process open.
  process.exit();
} else {
  await main(async () => {
    const needKey = () => {
      if (!apiKeyId) throw new UsageError(`--key-id is required\n${usage}`);
      return { apiKeyId };
    };
    switch (verb) {
      case 'listen': {
        const { restoreCommand } = await import('../webhook-listen/listen.ts');
        return restoreCommand({ apiKeyId, forwardTo: undefined, port: undefined, restore: true });
      }
      case 'set':
        if (!values.url) throw new UsageError(`--url is required\n${usage}`);
        return execute('webhooks.set', {
          ...needKey(),
          url: values.url,
          eventTypes: (values.events ?? '').split(',').map((t) => t.trim()).filter(Boolean),
          enabled: !values.disabled,
        });
      case 'show':
      case 'enable':
      case 'disable':
      case 'rotate':
      case 'test':
        return execute(`webhooks.${verb}`, needKey());
      case 'resend':
        if (!values.event === !values['tx-hash']) throw new UsageError(`give exactly one of --event and --tx-hash\n${usage}`);
        return execute('webhooks.resend', {
          ...(apiKeyId ? { apiKeyId } : {}),
          ...(values.event ? { eventId: values.event } : { txHash: values['tx-hash'] }),
        });
      case 'log':
        if (!values.event) throw new UsageError(`--event is required\n${usage}`);
        return execute('webhooks.log', { ...(apiKeyId ? { apiKeyId } : {}), eventId: values.event });
      default:
        throw new UsageError(usage);
    }
  });
}
