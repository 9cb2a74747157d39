// What keeps a CEL health check short whatever the expression and the object: a longest expression, an estimate of
// the evaluation's cost made before it starts, and `matches` on the RE2 engine. cel-js has no cost tracking, and
// its own `matches` is JavaScript's backtracking RegExp; the override below is the linear-time one.
import type { ASTNode } from '@marcbachmann/cel-js';
import { LimitError } from '../limits.js';

/** Longest expression compiled; health checks are a line or two. */
export const MAX_EXPRESSION_LENGTH = 10_000;

/**
 * Most AST node evaluations an expression may be estimated to take: cel-js needs ~0.15 µs each, several times that
 * on a loaded machine, so a few hundredths of a second to a tenth. A check over the conditions of an object whose
 * largest collection has 5,000 entries is estimated at ~50,000.
 */
export const MAX_EVALUATION_COST = 200_000;

/** The function that `.matches(` calls are renamed to; registered with the RE2 implementation. */
export const RE2_MATCHES = 'matchesRe2';

/** The macros that iterate over their receiver, evaluating their other arguments once per element. */
const COMPREHENSIONS = new Set(['all', 'exists', 'exists_one', 'map', 'filter']);

type Node = ASTNode;

function isNode(v: unknown): v is Node {
  return v !== null && typeof v === 'object' && 'op' in v && 'args' in v;
}

/** The nodes directly below node (map entries are pairs, call arguments a list). */
function children(node: Node): Node[] {
  const out: Node[] = [];
  const collect = (v: unknown): void => {
    if (isNode(v)) out.push(v);
    else if (Array.isArray(v)) v.forEach(collect);
  };
  collect(node.args);
  return out;
}

/** Every node of the tree, without recursion. */
function allNodes(root: Node): Node[] {
  const out: Node[] = [];
  const stack = [root];
  for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
    out.push(n);
    stack.push(...children(n));
  }
  return out;
}

/** A comprehension's receiver and the arguments it evaluates per element; undefined for any other node. */
function comprehension(node: Node): { receiver: Node; perElement: Node[] } | undefined {
  if (node.op !== 'rcall') return undefined;
  const [name, receiver, args] = node.args;
  return COMPREHENSIONS.has(name) ? { receiver, perElement: args } : undefined;
}

/** Node evaluations, when every collection iterated has `n` elements. */
function cost(node: Node, n: number): number {
  const c = comprehension(node);
  if (c !== undefined) {
    return cost(c.receiver, n) + n * (1 + c.perElement.reduce((sum, arg) => sum + cost(arg, n), 0));
  }
  return children(node).reduce((sum, child) => sum + cost(child, n), 1);
}

/** The largest collection and the longest string in a JSON value, without recursion. */
function sizes(value: unknown): { collection: number; string: number } {
  const out = { collection: 0, string: 0 };
  const stack = [value];
  for (let v = stack.pop(); stack.length > 0 || v !== undefined; v = stack.pop()) {
    if (typeof v === 'string') out.string = Math.max(out.string, v.length);
    if (v === null || typeof v !== 'object') continue;
    const items = Array.isArray(v) ? (v as unknown[]) : Object.values(v);
    out.collection = Math.max(out.collection, items.length);
    for (const item of items) stack.push(item);
  }
  return out;
}

/**
 * How many elements any collection the expression iterates may have: the object's largest collection or list
 * literal, or, when it splits strings, the longest string; each `+` may join two of them.
 */
function collectionBound(ast: Node, expression: string, object: unknown): number {
  const { collection, string } = sizes(object);
  const nodes = allNodes(ast);
  let n = Math.max(1, collection);
  for (const node of nodes) if (node.op === 'list') n = Math.max(n, node.args.length);
  if (nodes.some((node) => node.op === 'rcall' && node.args[0] === 'split')) {
    n = Math.max(n, string, expression.length);
  }
  return n * (1 + nodes.filter((node) => node.op === '+').length);
}

/** @throws LimitError when the expression is longer than MAX_EXPRESSION_LENGTH. */
export function checkExpressionLength(expression: string): void {
  if (expression.length > MAX_EXPRESSION_LENGTH) {
    throw new LimitError(
      `expression of ${expression.length} characters is longer than the limit of ${MAX_EXPRESSION_LENGTH}`,
    );
  }
}

/**
 * Estimates the evaluation's cost over this object: an upper bound, as if every iteration ran over the largest
 * collection there is.
 *
 * @throws LimitError past MAX_EVALUATION_COST.
 */
export function checkEvaluationCost(ast: Node, expression: string, object: unknown): void {
  const estimate = cost(ast, collectionBound(ast, expression, object));
  if (estimate > MAX_EVALUATION_COST) {
    throw new LimitError(`estimated cost ${estimate} exceeds the limit of ${MAX_EVALUATION_COST}`);
  }
}

/** From a receiver's end to its method name: closing parentheses, white space and comments, then `.matches`. */
const TO_MATCHES = /[\s)]*(?:\/\/[^\n]*(?:\n[\s)]*)?)*\.\s*(?:\/\/[^\n]*(?:\n\s*)?)*matches/y;

/** The expression with each `x.matches(re)` renamed to RE2_MATCHES, by the receiver positions the parser gives. */
export function withRe2Matches(expression: string, ast: Node): string {
  const names: number[] = [];
  for (const node of allNodes(ast)) {
    if (node.op !== 'rcall' || node.args[0] !== 'matches') continue;
    TO_MATCHES.lastIndex = node.args[1].end;
    if (TO_MATCHES.exec(expression) === null) throw new Error(`cannot find the matches call at ${node.start}`);
    names.push(TO_MATCHES.lastIndex - 'matches'.length);
  }
  let out = expression;
  for (const at of names.sort((a, b) => b - a)) {
    out = `${out.slice(0, at)}${RE2_MATCHES}${out.slice(at + 'matches'.length)}`;
  }
  return out;
}
