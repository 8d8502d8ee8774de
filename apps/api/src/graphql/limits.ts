import {
  GraphQLError,
  Kind,
  Lexer,
  Source,
  TokenKind,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

export const MAX_DEPTH = 10;
export const MAX_COST = 5_000;
/** Tokens a document may have (the console's largest has a few hundred). */
export const MAX_TOKENS = 2_000;
/** Items a list field without `first` is assumed to return (deliveries of a record, attempts). */
const UNBOUNDED_LIST_GUESS = 10;
const MAX_PAGE = 100;
const LIST_FIELDS = new Set(['webhookDeliveries', 'attempts', 'projects', 'edges', 'stages', 'approvals', 'requirements', 'approvalCases']);

const limitError = (message: string) =>
  new GraphQLError(message, { extensions: { code: 'INVALID_REQUEST', status: 400, message } });

const OPENING = new Set<string>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L]);
const CLOSING = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R]);

/**
 * Why a document may not be parsed (more than MAX_TOKENS tokens, or braces, brackets and
 * parentheses nested deeper than `maxNesting`: REST's limit for JSON bodies), read with
 * graphql-js's lexer, which does not recurse; graphql-js's parser does, and a few thousand nested
 * lists overflow its stack. Undefined when it may; the lexer's own syntax errors are thrown.
 */
export function unparseableBecause(source: string | Source, maxNesting: number): string | undefined {
  const lexer = new Lexer(typeof source === 'string' ? new Source(source) : source);
  let tokens = 0;
  let nesting = 0;
  for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
    if (++tokens > MAX_TOKENS) return `Document has more than ${MAX_TOKENS} tokens`;
    if (OPENING.has(token.kind) && ++nesting > maxNesting) return `Document is nested deeper than ${maxNesting} levels`;
    if (CLOSING.has(token.kind)) nesting--;
  }
  return undefined;
}

/**
 * Refuses documents deeper than MAX_DEPTH or costlier than MAX_COST before anything runs. Cost:
 * every field counts 1, times the page size of each enclosing connection (`first`, a variable
 * counted at the maximum page), and list fields without `first` count UNBOUNDED_LIST_GUESS items.
 */
export function queryLimitsRule(context: ValidationContext): ASTVisitor {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }

  function measure(selectionSet: SelectionSetNode, depth: number, multiplier: number, seen: Set<string>): { depth: number; cost: number } {
    let maxDepth = depth;
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        cost += multiplier;
        if (!selection.selectionSet) continue;
        const first = selection.arguments?.find((a) => a.name.value === 'first');
        let size = 1;
        if (first) size = first.value.kind === Kind.INT ? Math.min(Number(first.value.value), MAX_PAGE) : MAX_PAGE;
        else if (LIST_FIELDS.has(selection.name.value) && selection.name.value !== 'edges') size = UNBOUNDED_LIST_GUESS;
        const inner = measure(selection.selectionSet, depth + 1, multiplier * Math.max(size, 1), seen);
        maxDepth = Math.max(maxDepth, inner.depth);
        cost += inner.cost;
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const inner = measure(selection.selectionSet, depth, multiplier, seen);
        maxDepth = Math.max(maxDepth, inner.depth);
        cost += inner.cost;
      } else {
        const name = selection.name.value;
        const fragment = fragments.get(name);
        if (!fragment || seen.has(name)) continue; // unknown or cyclic: other rules report it
        const inner = measure(fragment.selectionSet, depth, multiplier, new Set([...seen, name]));
        maxDepth = Math.max(maxDepth, inner.depth);
        cost += inner.cost;
      }
      if (maxDepth > MAX_DEPTH || cost > MAX_COST) break;
    }
    return { depth: maxDepth, cost };
  }

  return {
    OperationDefinition(node) {
      const { depth, cost } = measure(node.selectionSet, 1, 1, new Set());
      if (depth > MAX_DEPTH) context.reportError(limitError(`Query too deep: ${depth} levels (at most ${MAX_DEPTH})`));
      else if (cost > MAX_COST) context.reportError(limitError(`Query too costly: about ${cost} fields (at most ${MAX_COST}); ask for smaller pages`));
    },
  };
}
