import { parseArgs } from 'node:util';
import { UsageError, execute, main } from './run.ts';

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
      every delivery of the event with its attempts (time, status code, latency, error)`;

await main(async () => {
  const { positionals, values } = parseArgs({
    allowPositionals: true,
    options: {
      'key-id': { type: 'string' },
      url: { type: 'string' },
      events: { type: 'string' },
      disabled: { type: 'boolean' },
      event: { type: 'string' },
      'tx-hash': { type: 'string' },
    },
  });
  const [verb] = positionals;
  const apiKeyId = values['key-id'];
  const needKey = () => {
    if (!apiKeyId) throw new UsageError(`--key-id is required\n${usage}`);
    return { apiKeyId };
  };
  switch (verb) {
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
