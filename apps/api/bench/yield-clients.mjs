// The yield bench's partner clients, in their own process: a partner's backend does not run in
// the service's process, so their HTTP and JSON work must not take the service's thread. For each
// job: POST a deposit, poll it until it leaves pending/submitted, and once it is confirmed POST a
// withdrawal of `all` and poll it the same way. Takes one message {baseUrl, apiKey, pollMs,
// timeoutMs, amount, jobs: [{walletId, marketId, tag}]} per round and answers {results}, one
// {ok: true, outcomes} or {ok: false, error} per job; times are Date.now(), the parent's clock.
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

process.on('message', async ({ baseUrl, apiKey, pollMs, timeoutMs, amount, jobs }) => {
  async function api(method, urlPath, body, headers = {}) {
    const response = await fetch(`${baseUrl}${urlPath}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  async function operate(walletId, phase, marketId, requested, key) {
    const postAt = Date.now();
    const created = await api('POST', `/v1/wallets/${walletId}/yield/${phase === 'deposit' ? 'deposits' : 'withdrawals'}`, { marketId, amount: requested }, { 'idempotency-key': key });
    if (created.status !== 202) throw new Error(`POST ${phase}: ${created.status} ${JSON.stringify(created.body)}`);
    const operationId = created.body.id;
    for (;;) {
      await sleep(pollMs);
      const got = await api('GET', `/v1/wallets/${walletId}/yield/operations/${operationId}`);
      if (got.status !== 200) throw new Error(`GET operation: ${got.status} ${JSON.stringify(got.body)}`);
      const status = got.body.status;
      const done = !['pending', 'submitted'].includes(status);
      if (done || Date.now() - postAt > timeoutMs) {
        return { walletId, phase, marketId, operationId, postAt, observedAt: Date.now(), status: done ? status : `timed out (${status})`, error: got.body.error };
      }
    }
  }

  async function depositThenWithdraw({ walletId, marketId, tag }) {
    const deposit = await operate(walletId, 'deposit', marketId, amount, `${tag}-dep`);
    if (deposit.status !== 'confirmed') return [deposit];
    return [deposit, await operate(walletId, 'withdrawal', marketId, 'all', `${tag}-wd`)];
  }

  const results = await Promise.all(
    jobs.map((job) =>
      depositThenWithdraw(job).then(
        (outcomes) => ({ ok: true, outcomes }),
        (error) => ({ ok: false, error: String(error?.message ?? error) }),
      ),
    ),
  );
  process.send({ results });
});
process.on('disconnect', () => process.exit(0));
