import { forward } from '@/lib/proxy';

export const dynamic = 'force-dynamic';

async function handle(request: Request, { params }: { params: Promise<{ path: string[] }> }) {
  const { path } = await params;
  return forward(request, `/trpc/${path.map(encodeURIComponent).join('/')}`);
}

export { handle as GET, handle as POST };
