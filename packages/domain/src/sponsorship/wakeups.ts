/**
 * In-process wake-ups of the sponsored worker: admission (a sponsored transfer or batch) and resume
 * announce a record that has just become due, and a worker of this process runs it at once instead
 * of at its next poll. A wake-up is only a hint: the worker still leases the record in the database
 * (so a worker of another process, or the next poll of this one, runs it just the same when no
 * worker listens here, as in a process with WORKERS=off), and a wake-up no one hears is lost harmlessly.
 */
export interface SponsoredWakeups {
  /** Announces a record now due (called after its commit). */
  due(recordId: string): void;
  /** Listens for announced records; the answer stops listening. */
  subscribe(listener: (recordId: string) => void): () => void;
}

export function createSponsoredWakeups(): SponsoredWakeups {
  const listeners = new Set<(recordId: string) => void>();
  return {
    due(recordId) {
      for (const listener of listeners) {
        try {
          listener(recordId);
        } catch {
          // A listener's failure never reaches the request that announced the record.
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
