import { contractPair } from './response-contract.ts';

/**
 * Which documented answers (operationId, status) a test run received, from its RESPONSE_CONTRACT_LOG
 * (lines `<answers checked>\t<suite>\t<operationId:status,…>`, response-contract.ts) and the
 * served OpenAPI document.
 */

interface CoverageDocument {
  paths: Record<string, Record<string, unknown>>;
}

interface Operation {
  operationId?: string;
  tags?: string[];
  responses?: Record<string, unknown>;
}

const operationsOf = (document: CoverageDocument) => Object.values(document.paths).flatMap((item) => Object.values(item) as Operation[]);

export interface DocumentedPair {
  tag: string;
  operationId: string;
  status: number;
  received: boolean;
}

export interface ContractCoverage {
  /** Every documented pair of the selected tags, by tag in the document's order, then path order and status. */
  pairs: DocumentedPair[];
  /** Log lines without the pairs field (written before it existed), whose answers are not counted. */
  linesWithoutPairs: number;
}

/** The pairs a log names, each once. */
export function receivedPairs(log: string): { received: Set<string>; linesWithoutPairs: number } {
  const received = new Set<string>();
  let linesWithoutPairs = 0;
  for (const line of log.split('\n')) {
    if (!line.trim()) continue;
    const fields = line.split('\t');
    if (fields.length < 3) {
      linesWithoutPairs += 1;
      continue;
    }
    for (const pair of fields[2]!.split(',')) if (pair) received.add(pair);
  }
  return { received, linesWithoutPairs };
}

/** The tags the document's operations carry, in the order they first appear. */
export function documentTags(document: CoverageDocument): string[] {
  return [...new Set(operationsOf(document).map((operation) => operation.tags?.[0] ?? 'untagged'))];
}

export function contractCoverage(document: CoverageDocument, log: string, tags: string[] = documentTags(document)): ContractCoverage {
  const unknown = tags.filter((tag) => !documentTags(document).includes(tag));
  if (unknown.length > 0) throw new Error(`unknown tag ${unknown.join(', ')}: the document's tags are ${documentTags(document).join(', ')}`);
  const { received, linesWithoutPairs } = receivedPairs(log);
  const pairs = operationsOf(document)
    .flatMap((operation) =>
      Object.keys(operation.responses ?? {})
        .filter((status) => /^\d{3}$/.test(status))
        .map((status) => ({
          tag: operation.tags?.[0] ?? 'untagged',
          operationId: operation.operationId ?? '',
          status: Number(status),
          received: received.has(contractPair(operation.operationId ?? '', status)),
        })),
    )
    .filter((pair) => tags.includes(pair.tag))
    .sort((a, b) => tags.indexOf(a.tag) - tags.indexOf(b.tag));
  return { pairs, linesWithoutPairs };
}

/** The documented 4xx pairs no test received: what the coverage gate fails on. */
export function missingClientErrors(coverage: ContractCoverage): DocumentedPair[] {
  return coverage.pairs.filter((pair) => !pair.received && pair.status >= 400 && pair.status < 500);
}

const byOperation = (pairs: DocumentedPair[]) => {
  const statuses = new Map<string, number[]>();
  for (const pair of pairs) statuses.set(pair.operationId, [...(statuses.get(pair.operationId) ?? []), pair.status]);
  return [...statuses].map(([operationId, list]) => `    ${operationId}: ${list.join(', ')}`);
};

/** The report the CLI prints: per tag, the pairs received and those never received, then a summary line. */
export function formatCoverage(coverage: ContractCoverage): string {
  const lines: string[] = [];
  const tags = [...new Set(coverage.pairs.map((pair) => pair.tag))];
  for (const tag of tags) {
    const pairs = coverage.pairs.filter((pair) => pair.tag === tag);
    const received = pairs.filter((pair) => pair.received);
    lines.push(`${tag}: ${received.length} of ${pairs.length} documented answers received`);
    lines.push('  received:', ...byOperation(received));
    lines.push('  never received:', ...byOperation(pairs.filter((pair) => !pair.received)));
  }
  if (coverage.linesWithoutPairs > 0) lines.push(`${coverage.linesWithoutPairs} log lines have no pairs field and were not counted`);
  const received = coverage.pairs.filter((pair) => pair.received).length;
  const missing = missingClientErrors(coverage).length;
  lines.push(`Summary: ${received} of ${coverage.pairs.length} documented answers received (${tags.join(', ')}); ${missing} documented 4xx never received`);
  return `${lines.join('\n')}\n`;
}
