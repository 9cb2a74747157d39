// Reading and checking the files `compositor render` is given. Every problem is a RenderInputError with one line
// that names the file and what is wrong with it, because users run render in CI and read its output there.
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { JsonObject } from '../functions/index.js';

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

/** Every YAML document of a file; empty documents are skipped, anything but a mapping is an error. */
export async function readDocuments(path: string, what: string): Promise<JsonObject[]> {
  const docs = parseAllDocuments(await readText(path, what));
  const objects: JsonObject[] = [];
  for (const [i, doc] of docs.entries()) {
    const problem = doc.errors[0];
    if (problem !== undefined)
      throw new RenderInputError(`cannot parse ${what} "${path}": ${firstLine(problem.message)}`);
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
