// What a ManagedResourceActivationPolicy activates, decided without the API server, as Crossplane v2.3's activation
// policy controller (internal/controller/apiextensions/activationpolicy): an MRD is activated when its name matches one
// of spec.activate, matched as Go's filepath.Match (`*` any run of characters, `?` one, `[a-z]` a class, `\` escapes),
// so `*.aws.crossplane.io` activates every MRD of that provider and `*` every MRD. status.activated lists every MRD the
// policy matches, active before or made active now, sorted; an MRD is never deactivated (an Active MRD's state cannot
// change back, by its CRD's rule).

/** Whether `name` matches `pattern` as filepath.Match; a malformed pattern matches nothing, as upstream ignores its error. */
export function matchesActivation(pattern: string, name: string): boolean {
  const regex = globRegex(pattern);
  return regex !== undefined && regex.test(name);
}

export interface ActivationPlan {
  /** Names of matching MRDs not yet Active, to be made Active. */
  activate: string[];
  /** Names of every matching MRD, sorted: the policy's status.activated. */
  activated: string[];
}

export function planActivation(
  patterns: readonly string[],
  mrds: readonly { name: string; state: string | undefined }[],
): ActivationPlan {
  const matching = mrds.filter((m) => patterns.some((p) => matchesActivation(p, m.name)));
  return {
    activate: matching.filter((m) => m.state !== 'Active').map((m) => m.name),
    activated: matching.map((m) => m.name).sort(),
  };
}

/** filepath.Match's pattern as an anchored regular expression; undefined when the pattern is malformed. */
function globRegex(pattern: string): RegExp | undefined {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern.charAt(i);
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '\\') {
      i++;
      if (i >= pattern.length) return undefined;
      out += escape(pattern.charAt(i));
    } else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end < 0) return undefined;
      const body = pattern.slice(i + 1, end);
      out += `[${body.startsWith('^') ? `^${body.slice(1)}` : body}]`;
      i = end;
    } else out += escape(c);
  }
  try {
    return new RegExp(`^${out}$`, 'u');
  } catch {
    return undefined;
  }
}

function escape(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
