/** The audit actions of a batch: its transaction or user operation (policies: each call a `sign_transaction`), and the delegation it carries. */
export const CALLS_ACTION = 'wallet.sign.calls';
export const CALLS_AUTHORIZATION_ACTION = 'wallet.sign.calls-authorization';
