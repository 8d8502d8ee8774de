// The sponsored bench's clients in a child process, so that their work does not take the service's
// thread (`node sponsored-processes.mjs clients`); times are Date.now(), the parent's clock.
//
// clients: the partners' backends. Takes one message {baseUrl, pollMs, timeoutMs, startAt, jobs:
// [{path, apiKey, walletId, atMs, body, key, expect}]} per round: each job waits until startAt + atMs,
// POSTs /v1/wallets/{walletId}/transfer, and polls the lookup until the record leaves
// pending/submitted (or pauses at requires_action). Answers {results}, one per job in order.
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function clients({ baseUrl, pollMs, timeoutMs, startAt, jobs }) {
  async function api(apiKey, method, urlPath, body, headers = {}) {
    const response = await fetch(`${baseUrl}${urlPath}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined };
  }

  async function transfer({ path, apiKey, walletId, atMs, body, key, expect }) {
    await sleep(Math.max(0, startAt + atMs - Date.now()));
    const postAt = Date.now();
    const answer = await api(apiKey, 'POST', `/v1/wallets/${walletId}/transfer`, body, { 'idempotency-key': key });
    const answeredAt = Date.now();
    const base = { path, walletId, postAt, answeredAt, answerStatus: answer.status };
    // A sponsored transfer answers 202 with its record; the legacy path 200 with the broadcast.
    if (answer.status !== expect || (expect === 202 && answer.body?.executionMode !== 'sponsored')) {
      return { ...base, status: `refused (${answer.status})`, error: answer.body };
    }
    const transactionId = answer.body.transactionId;
    let polls = 0;
    for (;;) {
      await sleep(pollMs);
      const got = await api(apiKey, 'GET', `/v1/wallets/${walletId}/transactions/${transactionId}`);
      polls++;
      if (got.status !== 200) throw new Error(`GET transaction: ${got.status} ${JSON.stringify(got.body)}`);
      const { status, stage } = got.body;
      const done = !['pending', 'submitted'].includes(status) || stage === 'requires_action';
      if (done || Date.now() - answeredAt > timeoutMs) {
        return {
          ...base,
          transactionId,
          observedAt: Date.now(),
          polls,
          status: done ? (stage === 'requires_action' ? 'requires_action' : status) : `timed out (${status}/${stage ?? ''})`,
          error: got.body.failureCode ? { code: got.body.failureCode, message: got.body.failureMessage } : undefined,
        };
      }
    }
  }

  const results = await Promise.all(
    jobs.map((job) => transfer(job).catch((error) => ({ path: job.path, walletId: job.walletId, status: 'crashed', error: String(error?.message ?? error) }))),
  );
  process.send({ results });
}

process.on('disconnect', () => process.exit(0));
process.on('message', clients);
