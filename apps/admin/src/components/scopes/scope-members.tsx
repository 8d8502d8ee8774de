'use client';

import { useQuery } from '@tanstack/react-query';
import { Button, Empty, ErrorBox, formatDate, Loading, Table, Td } from '@/components/ui';
import { CopyableValue } from '@/components/values';
import { useSession } from '@/lib/session';
import { useTRPC } from '@/lib/trpc';
import { AssignmentChips, type ScopeLocation } from './shared';

/** Users with at least one assignment in the scope, by user id; each opens the user's assignments. */
export function ScopeMembers({ location, scopeId, onOpen }: { location: ScopeLocation; scopeId: string; onOpen: (userId: string) => void }) {
  const trpc = useTRPC();
  const { canWrite } = useSession();
  const members = useQuery(trpc.scopes.members.queryOptions({ ...location, scopeId, limit: 100 }));
  if (members.isPending) return <Loading />;
  if (members.error) return <ErrorBox title="Members not available" error={members.error} />;
  if (members.data.data.length === 0) return <Empty title="No members in this scope">Assign a role or attribute to a user below (or over REST).</Empty>;
  return (
    <div className="space-y-2">
      <Table head={['User', 'Roles and attributes', 'Revision', 'Updated', '']} stickyLast>
        {members.data.data.map((m) => (
          <tr key={m.userId} data-testid={`member-${m.userId}`}>
            <Td>
              <CopyableValue value={m.userId} label="user id" width="md" />
            </Td>
            <Td>
              <AssignmentChips assignments={m.assignments} />
            </Td>
            <Td>{m.revision}</Td>
            <Td className="text-xs">{formatDate(m.updatedAt)}</Td>
            <Td sticky className="text-right">
              <Button variant="secondary" onClick={() => onOpen(m.userId)}>
                {canWrite ? 'Edit' : 'History'}
              </Button>
            </Td>
          </tr>
        ))}
      </Table>
      {members.data.pagination.hasMore ? <p className="text-xs text-slate-500">The first 100 members are shown.</p> : null}
    </div>
  );
}
