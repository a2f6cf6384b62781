import { useMemo } from 'preact/hooks';
import type { Translator } from './i18n.ts';
import { type Fact, type OutlineNode, outlineSchema } from './schema-outline.ts';
import { Pill } from './ui.tsx';

/**
 * An event type's payload schema as a tree: each field's name, type, whether it is required,
 * its description, allowed values and limits, nested fields indented under their object or
 * array. Words, not colour alone, say what is required.
 */
export function SchemaTree({ t, schema, labelledBy }: { t: Translator; schema: Record<string, unknown>; labelledBy: string }) {
  const root = useMemo(() => outlineSchema(schema), [schema]);
  return (
    <div class="schema">
      <p class="schema-root">
        <span class="schema-type">{typeLabel(t, root)}</span>
        {root.ref && <span class="muted"> ({root.ref})</span>}
      </p>
      <NodeNotes t={t} node={root} />
      {root.children.length > 0 && (
        <ul class="schema-tree" aria-labelledby={labelledBy}>
          {root.children.map((child, i) => (
            <SchemaNode key={`${child.role}-${child.name ?? i}`} t={t} node={child} />
          ))}
        </ul>
      )}
    </div>
  );
}

function SchemaNode({ t, node }: { t: Translator; node: OutlineNode }) {
  const children = shownChildren(node);
  return (
    <li class="schema-node">
      <div class="schema-line">
        <NodeName t={t} node={node} />
        <span class="schema-type">{typeLabel(t, node)}</span>
        {node.role === 'property' &&
          (node.required ? <strong class="schema-req">{t.t('schemaRequired')}</strong> : <span class="muted small">{t.t('schemaOptional')}</span>)}
        {node.ref && !node.repeat && !node.unresolved && <span class="muted small">{t.t('schemaRef', { name: node.ref })}</span>}
        {node.deprecated && <Pill kind="deprecated">{t.t('catalogDeprecated')}</Pill>}
      </div>
      <NodeNotes t={t} node={node} />
      {children.length > 0 && (
        <ul class="schema-tree">
          {children.map((child, i) => (
            <SchemaNode key={`${child.role}-${child.name ?? i}`} t={t} node={child} />
          ))}
        </ul>
      )}
    </li>
  );
}

function NodeName({ t, node }: { t: Translator; node: OutlineNode }) {
  switch (node.role) {
    case 'property':
      return <code class="schema-name">{node.name}</code>;
    case 'pattern':
      return <span class="schema-name">{t.t('schemaPatternKey', { pattern: node.name ?? '' })}</span>;
    case 'additional':
      return <span class="schema-name">{t.t('schemaAnyKey')}</span>;
    case 'item':
      return <span class="schema-name">{t.t('schemaEachItem')}</span>;
    case 'tuple':
      return <span class="schema-name">{t.t('schemaTupleItem', { n: node.index ?? 0 })}</span>;
    case 'option':
      return <span class="schema-name">{t.t('schemaOption', { n: node.index ?? 0 })}</span>;
    case 'root':
      return null;
  }
}

/** What is said under a node's line: description, allowed values, limits, and why children are missing. */
function NodeNotes({ t, node }: { t: Translator; node: OutlineNode }) {
  const facts = node.facts.map((f) => factText(t, f));
  const isObject = node.types.includes('object');
  return (
    <>
      {node.title && <p class="schema-title">{node.title}</p>}
      {node.description && <p class="schema-desc">{node.description}</p>}
      {node.enumValues && <ValueList label={t.t('schemaEnum')} values={node.enumValues} />}
      {node.constValue !== null && <ValueList label={t.t('schemaConst')} values={[node.constValue]} />}
      {node.defaultValue !== null && <ValueList label={t.t('schemaDefault')} values={[node.defaultValue]} />}
      {facts.length > 0 && <p class="schema-facts">{facts.join(' · ')}</p>}
      {node.combinator && <p class="schema-facts">{t.t(COMBINATOR_KEY[node.combinator])}</p>}
      {node.closed && <p class="schema-facts">{t.t(isObject ? 'schemaNoOtherKeys' : 'schemaNoOtherItems')}</p>}
      {node.repeat && <p class="schema-facts">{t.t('schemaRepeat', { name: node.ref ?? '' })}</p>}
      {node.unresolved && <p class="schema-facts">{t.t('schemaUnresolved', { ref: node.ref ?? '' })}</p>}
      {node.truncated && <p class="schema-facts">{t.t('schemaTruncated')}</p>}
    </>
  );
}

const COMBINATOR_KEY = { allOf: 'schemaAllOf', oneOf: 'schemaOneOf', anyOf: 'schemaAnyOf' } as const;

function ValueList({ label, values }: { label: string; values: string[] }) {
  return (
    <p class="schema-facts">
      {label}{' '}
      {values.map((v, i) => (
        <span key={v}>
          {i > 0 && ', '}
          <code>{v}</code>
        </span>
      ))}
    </p>
  );
}

/**
 * An item schema that is only a type (`{ type: 'string' }`): folded into its array's type,
 * "array of string", rather than a child line of its own.
 */
function foldedItem(node: OutlineNode): OutlineNode | null {
  if (!node.types.includes('array')) return null;
  const items = node.children.filter((c) => c.role === 'item');
  const item = items[0];
  if (items.length !== 1 || item === undefined) return null;
  const plain =
    item.children.length === 0 &&
    item.types.length > 0 &&
    !item.title &&
    !item.description &&
    !item.enumValues &&
    item.constValue === null &&
    item.facts.length === 0 &&
    !item.ref &&
    !item.never &&
    !item.closed;
  return plain ? item : null;
}

function shownChildren(node: OutlineNode): OutlineNode[] {
  const folded = foldedItem(node);
  return folded ? node.children.filter((c) => c !== folded) : node.children;
}

/** "string", "string or null", "array of integer", "any value", "nothing allowed". */
function typeLabel(t: Translator, node: OutlineNode): string {
  if (node.never) return t.t('schemaNever');
  if (node.repeat || node.unresolved) return node.ref ?? t.t('schemaAny');
  if (node.types.length === 0) return t.t('schemaAny');
  const folded = foldedItem(node);
  return node.types
    .map((type) => (type === 'array' && folded ? t.t('schemaArrayOf', { type: folded.types.join(t.t('schemaOr')) }) : type))
    .join(t.t('schemaOr'));
}

function factText(t: Translator, f: Fact): string {
  const n = (value: number) => t.number(value);
  switch (f.kind) {
    case 'min':
      return `≥ ${n(f.value)}`;
    case 'max':
      return `≤ ${n(f.value)}`;
    case 'exclusiveMin':
      return `> ${n(f.value)}`;
    case 'exclusiveMax':
      return `< ${n(f.value)}`;
    case 'multipleOf':
      return t.t('schemaMultipleOf', { n: f.value });
    case 'length':
    case 'items':
    case 'keys': {
      const range = f.min !== null && f.max !== null ? `${n(f.min)}–${n(f.max)}` : f.min !== null ? `≥ ${n(f.min)}` : `≤ ${n(f.max ?? 0)}`;
      return t.t(f.kind === 'length' ? 'schemaLength' : f.kind === 'items' ? 'schemaItems' : 'schemaKeys', { range });
    }
    case 'unique':
      return t.t('schemaUnique');
    case 'format':
      return t.t('schemaFormat', { format: f.value });
    case 'pattern':
      return t.t('schemaPattern', { pattern: f.value });
  }
}
