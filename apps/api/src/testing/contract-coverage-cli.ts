import { readFileSync } from 'node:fs';
import { servedOpenApiDocument } from '../client/client-types.ts';
import { contractCoverage, formatCoverage, missingClientErrors } from './contract-coverage.ts';

/**
 * `npm run contract:coverage -- <log file> [--tags Yield,Permissions]`: which documented
 * (operationId, status) pairs of the local-mode document a RESPONSE_CONTRACT_LOG run received.
 * Exits 1 when a documented 4xx of the reported tags (all tags without --tags) was never received,
 * 2 on a usage error.
 */
const usage = 'usage: contract-coverage <RESPONSE_CONTRACT_LOG file> [--tags Tag,Tag…]';
const args = process.argv.slice(2);
const tagsAt = args.indexOf('--tags');
const tags = tagsAt >= 0 ? args[tagsAt + 1]?.split(',').filter(Boolean) : undefined;
const files = args.filter((_, index) => tagsAt < 0 || (index !== tagsAt && index !== tagsAt + 1));

if (files.length !== 1 || files[0]!.startsWith('--') || (tagsAt >= 0 && !tags?.length)) {
  console.error(usage);
  process.exit(2);
}
try {
  const coverage = contractCoverage(servedOpenApiDocument({ local: true }), readFileSync(files[0]!, 'utf8'), tags);
  process.stdout.write(formatCoverage(coverage));
  process.exitCode = missingClientErrors(coverage).length > 0 ? 1 : 0;
} catch (error) {
  console.error(`contract-coverage: ${(error as Error).message}`);
  process.exitCode = 2;
}
