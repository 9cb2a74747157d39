// crank's --context-files and --context-values (crossplane/cli cmd/crossplane/render, BuildContextData and
// ParseContextData): the context a render's pipeline starts from instead of an empty one. Each value is YAML or
// JSON, read as crank reads it (k8s.io/apimachinery's yaml.Unmarshal: YAML 1.1 scalars, so `yes` is true); a
// file's contents are read first and a value given for the same key takes its place.
import { readFile } from 'node:fs/promises';
import { errorMessage } from '../base/index.js';
import type { JsonObject, JsonValue } from '../functions/index.js';
import { goYamlValue, RenderInputError } from './renderInputs.js';

/** `key=value` as the flags are given, split at the first `=` (a context key has none, a value may). */
export function keyValue(text: string, flag: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw new RenderInputError(`invalid ${flag} "${text}": want KEY=VALUE`);
  return [text.slice(0, at), text.slice(at + 1)];
}

function parsed(key: string, raw: string): JsonValue {
  try {
    return goYamlValue(raw);
  } catch (err) {
    throw new RenderInputError(
      `cannot parse context data: cannot unmarshal context value for key "${key}": ${errorMessage(err)}`,
      {
        cause: err,
      },
    );
  }
}

/**
 * The initial context: each `--context-files` key with its file's contents, then each `--context-values` key with
 * its value, both parsed as YAML (so JSON too).
 *
 * @example await initialContext({ 'example.org/env': 'env.json' }, { 'example.org/tier': '"gold"' })
 */
export async function initialContext(
  files: Readonly<Record<string, string>>,
  values: Readonly<Record<string, string>>,
): Promise<JsonObject> {
  const raw: Record<string, string> = {};
  for (const [key, path] of Object.entries(files)) {
    raw[key] = await readFile(path, 'utf8').catch((err: unknown) => {
      throw new RenderInputError(
        `cannot build context data: cannot read context value for key "${key}": ${errorMessage(err)}`,
        {
          cause: err,
        },
      );
    });
  }
  Object.assign(raw, values);
  return Object.fromEntries(Object.entries(raw).map(([key, text]) => [key, parsed(key, text)]));
}
