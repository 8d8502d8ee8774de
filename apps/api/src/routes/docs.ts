import { createRequire } from 'node:module';
import express, { type Router } from 'express';
import { DOCS_PAGE_HEADERS } from '../http/security-headers.ts';

const require = createRequire(import.meta.url);

/**
 * /docs renders /v1/openapi.json with Redoc served from the npm package (no CDN), under its own
 * Content-Security-Policy (security-headers.ts: the bundle, its blob: worker, its inline styles).
 */
export function docsRouter(): Router {
  const router = express.Router();
  const bundle = require.resolve('redoc/bundles/redoc.standalone.js');
  router.get('/docs/redoc.standalone.js', (_req, res) => {
    res.sendFile(bundle);
  });
  router.get('/docs', (_req, res) => {
    res.set(DOCS_PAGE_HEADERS);
    res.type('html').send(`<!doctype html>
<html><head><meta charset="utf-8"><title>Wallet service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="/v1/openapi.json"></redoc><script src="/docs/redoc.standalone.js"></script></body></html>`);
  });
  return router;
}
