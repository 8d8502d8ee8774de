import express from 'express';

// The baseline: a bare express route answering a small JSON object, no auth, no database.
const app = express();
app.get('/bare/:id', (req, res) => {
  res.json({ id: req.params.id, type: 'EVM', status: 'ready' });
});
const server = app.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object') process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`);
});
