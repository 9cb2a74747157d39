// Reading and checking the files `compositor render` is given. Every problem is a RenderInputError with one line
// that names the file and what is wrong with it, because users run render in CI and read its output there. Files
// read as crank reads them (sigs.k8s.io/yaml over go-yaml v2): YAML 1.1 plain scalars, so `yes` is true and 0777 is
// 511, and anything quoted stays text.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments, visit, type Document } from 'yaml';
import type { JsonObject, JsonValue } from '../functions/index.js';
import { plainValue } from './goYamlScalars.js';

export class RenderInputError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'RenderInputError';
  }
}

/** The first line of a message, without the colon that introduces the snippet the yaml library adds below it. */
function firstLine(text: string): string {
  return (text.split('\n')[0] ?? '').replace(/:\s*$/, '');
}

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const detail = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    throw new RenderInputError(`cannot read ${what} "${path}": ${firstLine(detail)}`, { cause: err });
  }
}

/** Explicit tags go-yaml resolves a plain scalar with; any other tag (`!!str`, `!foo`) keeps the text. */
const RESOLVING_TAGS = new Set(['tag:yaml.org,2002:bool', 'tag:yaml.org,2002:int', 'tag:yaml.org,2002:float']);

/**
 * Gives every plain scalar of a document (read with the failsafe schema, so all are text) the value go-yaml v2
 * reads; returns the first value JSON cannot hold (.inf, .nan), which sigs.k8s.io/yaml rejects.
 */
function resolveGoScalars(doc: Document): string | undefined {
  let notJson: string | undefined;
  visit(doc, {
    Scalar(_, node) {
      if (node.value instanceof Uint8Array) node.value = Buffer.from(node.value).toString('utf8');
      if (typeof node.value !== 'string' || node.type !== 'PLAIN') return;
      if (node.tag !== undefined && !RESOLVING_TAGS.has(node.tag)) return;
      const text = node.value;
      node.value = plainValue(text);
      if (typeof node.value === 'number' && !Number.isFinite(node.value)) notJson ??= text;
    },
  });
  return notJson;
}

/**
 * The value one YAML (or JSON) text holds, read as go-yaml v2 reads it (sigs.k8s.io/yaml, which crank's context
 * flags go through): `yes` is true, `0777` is 511. Like go-yaml it reads the first document only. A syntax error,
 * or a number JSON cannot hold, throws.
 *
 * @example goYamlValue('{tier: gold, on: yes}') // { tier: 'gold', on: true }
 */
export function goYamlValue(text: string): JsonValue {
  const [doc] = parseAllDocuments(text, { schema: 'failsafe', merge: true });
  if (doc === undefined) return null;
  const problem = doc.errors[0];
  if (problem !== undefined) throw new Error(firstLine(problem.message));
  const notJson = resolveGoScalars(doc);
  if (notJson !== undefined) throw new Error(`${notJson} is not a JSON number`);
  return (doc.toJS() ?? null) as JsonValue;
}

/** Every YAML document of a file; empty documents are skipped, anything but a mapping is an error. */
export async function readDocuments(path: string, what: string): Promise<JsonObject[]> {
  const docs = parseAllDocuments(await readText(path, what), { schema: 'failsafe', merge: true });
  const objects: JsonObject[] = [];
  for (const [i, doc] of docs.entries()) {
    const problem = doc.errors[0];
    if (problem !== undefined)
      throw new RenderInputError(`cannot parse ${what} "${path}": ${firstLine(problem.message)}`);
    const notJson = resolveGoScalars(doc);
    if (notJson !== undefined)
      throw new RenderInputError(`cannot parse ${what} "${path}": ${notJson} is not a JSON number`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (!isObject(value))
      throw new RenderInputError(`invalid ${what} "${path}": document ${i + 1} is not a YAML mapping`);
    objects.push(value);
  }
  return objects;
}

/** The single object a file holds. */
export async function readObject(path: string, what: string): Promise<JsonObject> {
  const objects = await readDocuments(path, what);
  const [object] = objects;
  if (object === undefined || objects.length > 1) {
    throw new RenderInputError(`invalid ${what} "${path}": expected exactly one object, found ${objects.length}`);
  }
  return object;
}

/** The objects of a file, or of every .yaml/.yml/.json file of a directory in name order. */
export async function readObjects(path: string, what: string): Promise<JsonObject[]> {
  let isDir = false;
  try {
    isDir = (await stat(path)).isDirectory();
  } catch {
    // Not there: readDocuments reports it with the file name.
  }
  if (!isDir) return readDocuments(path, what);
  const files = (await readdir(path)).filter((f) => /\.(ya?ml|json)$/.test(f)).sort();
  const all = await Promise.all(files.map((f) => readDocuments(join(path, f), what)));
  return all.flat();
}
