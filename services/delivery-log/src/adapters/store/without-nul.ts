/*
 * PostgreSQL refuses the NUL character in text and jsonb ("invalid byte sequence",
 * "unsupported Unicode escape sequence"), and a batch the store refuses is read again until it is
 * taken: one NUL from a partner (in a refused webhook's request_id, a response excerpt, a reason)
 * would hold up its whole partition. So every value written goes through here first, whatever
 * table or statement: a NUL becomes U+FFFD, in plain text and as the \u0000 escape of JSON text.
 * Nothing else is changed. A Kysely plugin (its public extension point).
 */
import {
  OperationNodeTransformer,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type PrimitiveValueListNode,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
  type ValueNode,
} from 'kysely';

const NUL = '\u0000';
/** The escape as it appears in JSON text (not preceded by another backslash). */
const ESCAPED_NUL = /(?<!\\)\\u0000/g;

export function withoutNul(value: unknown): unknown {
  if (typeof value !== 'string' || (!value.includes(NUL) && !value.includes('\\u0000'))) return value;
  return value.replaceAll(NUL, '\uFFFD').replace(ESCAPED_NUL, '\\ufffd');
}

class NulReplacer extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    const value = withoutNul(node.value);
    return value === node.value ? node : { ...node, value };
  }

  protected override transformPrimitiveValueList(node: PrimitiveValueListNode): PrimitiveValueListNode {
    return { ...node, values: node.values.map(withoutNul) };
  }
}

export class WithoutNulPlugin implements KyselyPlugin {
  private readonly replacer = new NulReplacer();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.replacer.transformNode(args.node);
  }

  transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return Promise.resolve(args.result);
  }
}
