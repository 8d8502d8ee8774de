/**
 * The routes the dry run takes and an example body for each (EVM, Base Sepolia 84532), in the
 * shape the route itself takes: the panel starts from these and the staff member edits them.
 */
export const dryRunRoutes = ['transfer', 'sign-transaction', 'sign-message', 'sign-raw', 'sign-typed-data', 'sign-authorization'] as const;
export type DryRunRoute = (typeof dryRunRoutes)[number];

const TO = '0x000000000000000000000000000000000000dEaD';

const examples: Record<DryRunRoute, Record<string, unknown>> = {
  transfer: { to: TO, value: '1000', chainId: 84532 },
  'sign-transaction': {
    transaction: { to: TO, value: '1000', chainId: 84532, nonce: 0, gasLimit: '21000', maxFeePerGas: '20000000000', maxPriorityFeePerGas: '1000000000' },
  },
  'sign-message': { message: 'Hello from the dry run' },
  'sign-raw': { data: `0x${'11'.repeat(32)}` },
  'sign-typed-data': {
    typedData: { domain: { name: 'Example', chainId: 84532 }, types: { Mail: [{ name: 'note', type: 'string' }] }, primaryType: 'Mail', message: { note: 'hi' } },
  },
  'sign-authorization': { authorization: { address: TO, chainId: 84532, nonce: 0 } },
};

export const exampleBody = (route: DryRunRoute) => `${JSON.stringify(examples[route], null, 2)}\n`;
