import { hasControlCharacter } from '@wallet/domain';
import { BREAK, Kind, visit, type ArgumentNode, type DocumentNode, type ValueNode } from 'graphql';

type Item = { node: ValueNode } | { json: unknown };

/** Whether an argument's value holds a string with a control character: its literals, and the variables it names (walked iteratively: a variable's value may nest deep). */
function holdsControlCharacter(value: ValueNode, variables: Record<string, unknown>): boolean {
  const stack: Item[] = [{ node: value }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    if ('json' in item) {
      const json = item.json;
      if (typeof json === 'string') {
        if (hasControlCharacter(json)) return true;
      } else if (typeof json === 'object' && json !== null) {
        for (const child of Array.isArray(json) ? json : Object.values(json)) stack.push({ json: child });
      }
      continue;
    }
    const node = item.node;
    if (node.kind === Kind.STRING && hasControlCharacter(node.value)) return true;
    if (node.kind === Kind.LIST) for (const child of node.values) stack.push({ node: child });
    if (node.kind === Kind.OBJECT) for (const field of node.fields) stack.push({ node: field.value });
    if (node.kind === Kind.VARIABLE) stack.push({ json: variables[node.name.value] });
  }
  return false;
}

/**
 * The first argument of the document whose value holds a control character (U+0000–U+001F,
 * U+007F), REST's rule for path and query values: ids, hashes, addresses and filters name
 * things, and PostgreSQL refuses U+0000 in text. Undefined when there is none.
 */
export function controlCharacterArgument(document: DocumentNode, variables: Record<string, unknown>): ArgumentNode | undefined {
  let refused: ArgumentNode | undefined;
  visit(document, {
    Argument(node) {
      if (!holdsControlCharacter(node.value, variables)) return undefined;
      refused = node;
      return BREAK;
    },
  });
  return refused;
}
