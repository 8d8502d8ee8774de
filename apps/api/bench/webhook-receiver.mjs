// The benchmark's receiver, in its own process: HTTPS on loopback with the test certificate
// (src/webhooks/testing), answers 204 at once and reports each request's arrival time (ms since
// the epoch) and webhook-id to the parent over IPC, in batches.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src/webhooks/testing');
let pending = [];
const server = https.createServer({ cert: readFileSync(path.join(dir, 'localhost.pem')), key: readFileSync(path.join(dir, 'localhost-key.pem')) }, (req, res) => {
  const at = Date.now();
  req.resume();
  req.on('end', () => {
    pending.push([req.headers['webhook-id'], at]);
    res.statusCode = 204;
    res.end();
  });
});
setInterval(() => {
  if (pending.length === 0) return;
  process.send({ arrivals: pending });
  pending = [];
}, 50);
server.listen(0, '127.0.0.1', () => process.send({ url: `https://127.0.0.1:${server.address().port}/hooks` }));
process.on('disconnect', () => process.exit(0));
