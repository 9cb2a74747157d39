// WWW-Authenticate challenges of the distribution spec's token authentication: `Bearer realm="…",service="…"`
// sends the client to a token service, `Basic realm="…"` asks for the credentials on every request.

export interface Challenge {
  scheme: 'bearer' | 'basic';
  /** Lower-cased parameter names: realm, service, scope, error. */
  params: Record<string, string>;
}

/**
 * Parses one challenge; undefined for a scheme other than Bearer or Basic, or no header.
 *
 * @example parseChallenge('Bearer realm="https://auth.example.com/token",service="registry.example.com"')
 * // { scheme: 'bearer', params: { realm: 'https://auth.example.com/token', service: 'registry.example.com' } }
 */
export function parseChallenge(header: string | null | undefined): Challenge | undefined {
  if (header === null || header === undefined) return undefined;
  const match = /^\s*(\w+)\s*(.*)$/s.exec(header);
  const scheme = match?.[1]?.toLowerCase();
  if (scheme !== 'bearer' && scheme !== 'basic') return undefined;
  return { scheme, params: parseParams(match?.[2] ?? '') };
}

// name=value or name="quoted, with \" escapes", separated by commas.
function parseParams(text: string): Record<string, string> {
  const params: Record<string, string> = {};
  const param = /([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g;
  for (const [, name = '', quoted, bare] of text.matchAll(param)) {
    params[name.toLowerCase()] = quoted !== undefined ? quoted.replace(/\\(.)/g, '$1') : (bare ?? '');
  }
  return params;
}
