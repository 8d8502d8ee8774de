// Plain JavaScript: read by the build scripts (the signer's and the API's) and bundled into the signer.
/**
 * Node's options for the processes that run threshold ECDSA's presigning threads (the signer, and the
 * API: apps/api/scripts/build.mjs). V8 collects every thread's heap with helper threads of the
 * process's own priority; the presigning threads allocate heavily and run at nice 10, so their
 * collections ran at nice 0 beside the event loops and took their cores (the pooled signatures'
 * p99 was 10 - 19 ms at 20/s with refills running). --single-threaded-gc collects each heap on its
 * own thread, at that thread's priority (p99 5 - 7 ms, docs/benchmarks.md); the event loops' own
 * heaps are small, their pauses a millisecond or two either way.
 */
export const presigningNodeFlags = ['--single-threaded-gc'];
