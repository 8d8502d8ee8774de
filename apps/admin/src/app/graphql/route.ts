import { forward } from '@/lib/proxy';

export const dynamic = 'force-dynamic';

async function handle(request: Request) {
  return forward(request, '/graphql');
}

export { handle as GET, handle as POST };
