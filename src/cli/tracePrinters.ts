// The three shapes `compositor trace` prints a tree in, each as `crossplane beta trace` prints it: a table (default
// and wide), JSON and Graphviz dot. Pure functions of the tree, so their exact output is unit-tested.
import { PAUSED_ANNOTATION, RECONCILE_PAUSED } from '../controller/index.js';
import { tabulate } from './tabWriter.js';
import { readyConditionType } from './traceOperations.js';
import type { TraceError, TraceNode, TracedCondition } from './traceTree.js';

export type TraceFormat = 'default' | 'wide' | 'json' | 'dot';

/** The annotation naming a composed resource within its composition: the wide table's RESOURCE column. */
const RESOURCE_NAME_ANNOTATION = 'crossplane.io/composition-resource-name';
/** Outside wide output a message keeps only its last 64 characters, as upstream crops it. */
const MESSAGE_LIMIT = 64;

function condition(node: TraceNode, type: string): TracedCondition | undefined {
  return node.object.status?.conditions?.find((c) => c.type === type);
}

/** The READY column's condition: Ready, or what stands in for it on the ops kinds (an Operation's Succeeded). */
function ready(node: TraceNode): TracedCondition | undefined {
  return condition(node, readyConditionType(node.object));
}

function isTrue(c: TracedCondition | undefined): boolean {
  return c?.status === 'True';
}

/** A condition worth showing: not True and saying something. */
function telling(c: TracedCondition | undefined): TracedCondition | undefined {
  return c !== undefined && !isTrue(c) && ((c.reason ?? '') !== '' || (c.message ?? '') !== '') ? c : undefined;
}

/**
 * The condition the STATUS column is read from. Synced wins over Ready when either is not True. A paused resource
 * shows the pause whether or not a controller has written ReconcilePaused yet.
 */
function statusCondition(node: TraceNode): Pick<TracedCondition, 'reason' | 'message'> | undefined {
  const done = ready(node);
  const synced = condition(node, 'Synced');
  if (node.object.metadata.annotations?.[PAUSED_ANNOTATION] === 'true') {
    return synced?.reason === RECONCILE_PAUSED.reason ? synced : RECONCILE_PAUSED;
  }
  if (isTrue(done) && isTrue(synced)) return { reason: done?.reason };
  return telling(synced) ?? telling(done) ?? done;
}

function cropped(message: string, wide: boolean): string {
  const chars = Array.from(message);
  return !wide && chars.length > MESSAGE_LIMIT ? `...${chars.slice(-MESSAGE_LIMIT).join('')}` : message;
}

/** STATUS: Deleting, or Error and why the resource could not be read, or a condition's reason and message. */
export function statusText(node: TraceNode, wide: boolean): string {
  if (node.object.metadata.deletionTimestamp !== undefined) return 'Deleting';
  const shown = node.error ? { reason: 'Error', message: node.error.message } : statusCondition(node);
  const message = cropped(shown?.message ?? '', wide);
  return message === '' ? (shown?.reason ?? '') : `${shown?.reason ?? ''}: ${message}`;
}

function dash(c: TracedCondition | undefined): string {
  return c?.status === undefined || c.status === '' ? '-' : c.status;
}

/**
 * What each child depends on, by its composition resource name, from the parent's resourceRefs (the graph composed
 * resource ordering keeps there, docs/ordering.md); empty for an XR composed without it.
 */
function dependsOnOf(node: TraceNode): Map<string, string[]> {
  const crossplane = node.object.spec?.crossplane as { resourceRefs?: unknown } | undefined;
  const refs = crossplane?.resourceRefs ?? node.object.spec?.resourceRefs;
  const out = new Map<string, string[]>();
  for (const ref of Array.isArray(refs) ? (refs as Record<string, unknown>[]) : []) {
    const on = Array.isArray(ref.dependsOn) ? ref.dependsOn.filter((d): d is string => typeof d === 'string') : [];
    if (typeof ref.resourceName === 'string' && on.length > 0) out.set(ref.resourceName, on);
  }
  return out;
}

function resourceNameOf(node: TraceNode): string {
  return node.object.metadata.annotations?.[RESOURCE_NAME_ANNOTATION] ?? '';
}

function nameOf(node: TraceNode): string {
  const { kind, metadata } = node.object;
  const namespace = metadata.namespace ?? '';
  return `${kind}/${metadata.name}${namespace === '' ? '' : ` (${namespace})`}`;
}

/** Rows depth first, each name drawn below its parent with ├─, └─ and │ as upstream draws the tree. */
function rows(
  node: TraceNode,
  wide: boolean,
  prefix: { own: string; children: string; dependsOn?: readonly string[] },
): string[][] {
  const name = prefix.own + nameOf(node);
  const after = prefix.dependsOn === undefined ? '' : ` (depends on ${prefix.dependsOn.join(', ')})`;
  const resource = resourceNameOf(node) + after;
  const status = [dash(condition(node, 'Synced')), dash(ready(node)), statusText(node, wide)];
  const own = wide ? [name, resource, ...status] : [name, ...status];
  const graph = dependsOnOf(node);
  const children = node.children.flatMap((child, index) => {
    const last = index === node.children.length - 1;
    const dependsOn = graph.get(resourceNameOf(child));
    return rows(child, wide, {
      own: prefix.children + (last ? '└─ ' : '├─ '),
      children: prefix.children + (last ? '   ' : '│  '),
      ...(dependsOn ? { dependsOn } : {}),
    });
  });
  return [own, ...children];
}

/** The default table (NAME, SYNCED, READY, STATUS); wide adds RESOURCE and keeps messages whole. */
export function printTable(tree: TraceNode, wide: boolean): string {
  const header = wide ? ['NAME', 'RESOURCE', 'SYNCED', 'READY', 'STATUS'] : ['NAME', 'SYNCED', 'READY', 'STATUS'];
  return tabulate([header, ...rows(tree, wide, { own: '', children: '' })]);
}

/** Keys sorted at every level, as Go marshals the map an unstructured object is. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([key, field]) => [key, sortedKeys(field)]));
}

/**
 * The error as Go marshals the client's StatusError: the server's Status under ErrStatus, in Status's field order.
 * A failure without a Status (an unserved kind, a broken connection) gets a Status of its own with just the message,
 * so that scripts read `.error.ErrStatus.message` either way.
 */
function errorJson(error: TraceError): unknown {
  const status = error.status ?? { status: 'Failure', message: error.message };
  const fields = ['status', 'message', 'reason', 'details', 'code'].filter((f) => status[f] !== undefined);
  return { ErrStatus: { metadata: {}, ...Object.fromEntries(fields.map((f) => [f, status[f]])) } };
}

function nodeJson(node: TraceNode): unknown {
  return {
    object: sortedKeys(node.object),
    ...(node.error ? { error: errorJson(node.error) } : {}),
    ...(node.children.length > 0 ? { children: node.children.map(nodeJson) } : {}),
  };
}

/** `{"object", "error", "children"}` per resource, indented by two spaces, with Go's escaping of <, > and &. */
export function printJson(tree: TraceNode): string {
  const text = JSON.stringify(nodeJson(tree), null, 2);
  return `${text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

/** A string as Go's %q quotes it, which is how dot attribute values are written upstream. */
export function goQuote(text: string): string {
  const escapes: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  const body = Array.from(text)
    .map((c) => {
      const code = c.codePointAt(0) ?? 0;
      if (escapes[c] !== undefined) return escapes[c];
      return code < 0x20 || code === 0x7f ? `\\x${code.toString(16).padStart(2, '0')}` : c;
    })
    .join('');
  return `"${body}"`;
}

function dotLabel(node: TraceNode): string {
  const { apiVersion, metadata } = node.object;
  const lines = [`Name: ${node.object.kind}/${metadata.name}`, `ApiVersion: ${apiVersion}`];
  if ((metadata.namespace ?? '') !== '') lines.push(`Namespace: ${metadata.namespace ?? ''}`);
  lines.push(`Ready: ${ready(node)?.status ?? ''}`, `Synced: ${condition(node, 'Synced')?.status ?? ''}`);
  if (node.error) lines.push(`Error: ${node.error.message}`);
  return `${lines.join('\n')}\n`;
}

/** Dashed "depends on" edges between siblings, from the parent's resourceRefs; none without ordering's graph. */
function dependencyEdges(node: TraceNode, ids: ReadonlyMap<TraceNode, number>): string[] {
  const graph = dependsOnOf(node);
  if (graph.size === 0) return [];
  const byName = new Map(node.children.map((child) => [resourceNameOf(child), ids.get(child)]));
  return node.children.flatMap((child) =>
    (graph.get(resourceNameOf(child)) ?? []).flatMap((on) => {
      const target = byName.get(on);
      return target === undefined
        ? []
        : [`\tn${ids.get(child) ?? 0}--n${target}[style="dashed",label="depends on"];\n`];
    }),
  );
}

/**
 * An undirected graph, nodes numbered breadth first, for `dot -Tpng`; with composed resource ordering, dashed edges
 * join each composed resource to those it depends on.
 */
export function printDot(tree: TraceNode): string {
  const nodes: string[] = [];
  const edges: string[] = [];
  const ids = new Map<TraceNode, number>();
  const queue: { node: TraceNode; parent?: number }[] = [{ node: tree }];
  for (let id = 1, item = queue.shift(); item !== undefined; id++, item = queue.shift()) {
    ids.set(item.node, id);
    nodes.push(`\tn${id}[label=${goQuote(dotLabel(item.node))},penwidth="2"];\n`);
    if (item.parent !== undefined) edges.push(`\tn${item.parent}--n${id};\n`);
    for (const child of item.node.children) queue.push({ node: child, parent: id });
  }
  const dependencies = [...ids.keys()].flatMap((node) => dependencyEdges(node, ids));
  return `graph  {\n\t\n${nodes.join('')}${edges.join('')}${dependencies.join('')}\t\n}\n`;
}

/** The tree in the chosen format, ending in a newline. */
export function printTrace(tree: TraceNode, format: TraceFormat): string {
  if (format === 'json') return printJson(tree);
  if (format === 'dot') return printDot(tree);
  return printTable(tree, format === 'wide');
}
