/** Forwards a console request to the API (API_URL, read per request), keeping cookies same-origin on the console. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host', 'content-length', 'accept-encoding']);

export function apiUrl(): string {
  return (process.env.API_URL ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
}

export async function forward(request: Request, path: string): Promise<Response> {
  const incoming = new URL(request.url);
  const target = `${apiUrl()}${path}${incoming.search}`;
  const headers = new Headers();
  request.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name.toLowerCase())) headers.set(name, value);
  });
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  let upstream: Response;
  try {
    upstream = await fetch(target, {
      method: request.method,
      headers,
      body: hasBody ? await request.arrayBuffer() : undefined,
      redirect: 'manual',
      cache: 'no-store',
    });
  } catch {
    return Response.json({ error: { message: 'The API is unreachable', data: { httpStatus: 503, apiError: { code: 'SERVICE_UNAVAILABLE', message: 'The API is unreachable' } } } }, { status: 503 });
  }
  const out = new Headers();
  upstream.headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (lower === 'set-cookie' || lower === 'content-encoding' || lower === 'content-length' || HOP_BY_HOP.has(lower)) return;
    out.set(name, value);
  });
  for (const cookie of upstream.headers.getSetCookie()) out.append('set-cookie', cookie);
  return new Response(upstream.body, { status: upstream.status, statusText: upstream.statusText, headers: out });
}
