// A pipeline step served with the official TypeScript SDK that applies function-sequencer's rules as its fn.go does
// (crossplane-contrib/function-sequencer, fn.go and input/v1beta1/input.go), so tests can show that compositions
// sequenced by it today behave the same with compositor's ordering. Its behaviour, mirrored here:
// - Each rule's `sequence` lists composition resource names, or regular expressions (anchored with ^ and $ unless
//   the entry starts with ^ or ends with $).
// - Creation: a resource after the first that is not observed yet is removed from the desired state, with a Normal
//   result, unless every desired resource matching each entry before it is desired Ready (`deleteOnly` rules skip
//   this). Resources that already exist are never removed.
// - Deletion (`enableDeletionSequencing`): for each adjacent pair of a rule (`createOnly` rules skip this), a
//   protection.crossplane.io/v1beta1 Usage (ClusterUsage for a cluster-scoped resource) by each observed resource
//   matching the later entry of each observed and desired resource matching the earlier one, composed as
//   `<by>-<of>-usage`, Ready, with `replayDeletion` as the input says.
// Not mirrored: the rules' CEL `condition`, `cacheTTL`, v1 Usages, and the hashed Usage names (a readable name here).
// Started as a separate process: `tsx test/functions/sequencer-function.ts --insecure --address 127.0.0.1:<port>`.
import {
  fatal,
  normal,
  Ready,
  serve,
  type ComposeFunction,
  type ComposeResponse,
  type RunFunctionRequest,
} from '@crossplane-org/function-sdk-typescript';

export interface SequencerInput {
  apiVersion: string;
  kind: string;
  enableDeletionSequencing?: boolean;
  replayDeletion?: boolean;
  resetCompositeReadiness?: boolean;
  rules: { sequence: string[]; createOnly?: boolean; deleteOnly?: boolean }[];
}

interface Named {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string };
}

const USAGE_API_VERSION = 'protection.crossplane.io/v1beta1';

function strict(pattern: string): RegExp {
  return new RegExp(pattern.startsWith('^') || pattern.endsWith('$') ? pattern : `^${pattern}$`);
}

function isUsage(object: Named): boolean {
  return object.apiVersion === USAGE_API_VERSION && (object.kind === 'Usage' || object.kind === 'ClusterUsage');
}

function ref(object: Named): Record<string, unknown> {
  return { apiVersion: object.apiVersion, kind: object.kind, resourceRef: { name: object.metadata?.name } };
}

function usageOf(of: Named, by: Named, replayDeletion: boolean): Record<string, unknown> {
  const namespace = of.metadata?.namespace;
  const name = `${by.kind}-${by.metadata?.name}-${of.kind}-${of.metadata?.name}-dependency`.toLowerCase().slice(0, 63);
  return {
    apiVersion: USAGE_API_VERSION,
    kind: namespace === undefined || namespace === '' ? 'ClusterUsage' : 'Usage',
    metadata: namespace === undefined || namespace === '' ? { name } : { name, namespace },
    spec: { by: ref(by), of: ref(of), reason: 'dependency', replayDeletion },
  };
}

type Observed = Record<string, Named>;

function observedOf(req: RunFunctionRequest): Observed {
  const out: Observed = {};
  for (const [name, r] of Object.entries(req.observed?.resources ?? {})) out[name] = r.resource ?? {};
  return out;
}

type Desired = ComposeResponse['desired']['resources'];

/** Adds to `usages` those keeping each adjacent pair's deletion in order, by composition resource name. */
function usagesFor(sequence: string[], observed: Observed, desired: Desired, usages: Desired, replay: boolean): void {
  for (let i = 1; i < sequence.length; i++) {
    const by = strict(sequence[i] ?? '');
    const of = strict(sequence[i - 1] ?? '');
    for (const [c, user] of Object.entries(observed)) {
      if (!by.test(c) || isUsage(user)) continue;
      for (const k of Object.keys(desired)) {
        const used = observed[k];
        if (!of.test(k) || used === undefined) continue;
        usages[`${c}-${k}-usage`] = {
          resource: usageOf(used, user, replay),
          connectionDetails: {},
          ready: Ready.READY_TRUE,
        };
      }
    }
  }
}

/** Removes the desired resources matching `pattern` that do not exist yet. */
function holdBack(pattern: string, observed: Observed, rsp: ComposeResponse, input: SequencerInput): void {
  const re = strict(pattern);
  const all = Object.entries(rsp.desired.resources);
  const kept = all.filter(([k]) => !re.test(k) || k in observed);
  rsp.desired.resources = Object.fromEntries(kept);
  if (kept.length < all.length && input.resetCompositeReadiness === true && rsp.desired.composite) {
    rsp.desired.composite.ready = Ready.READY_FALSE;
  }
}

/** Why resources matching `r` may not be created because of `before`, or undefined when they may. */
function delay(r: string, before: string, desired: Desired): string | undefined {
  const keys = Object.keys(desired).filter((k) => strict(before).test(k));
  const ready = keys.filter((k) => desired[k]?.ready === Ready.READY_TRUE).length;
  if (keys.length > 0 && ready === keys.length) return undefined;
  return keys.length === 0
    ? `Delaying creation of resource(s) matching "${r}" because "${before}" does not exist yet`
    : `Delaying creation of resource(s) matching "${r}" because "${before}" is not fully ready (${ready} of ${keys.length})`;
}

/** Creation sequencing of one rule: removes what may not be created yet from the desired state. */
function gate(sequence: string[], observed: Observed, rsp: ComposeResponse, input: SequencerInput): void {
  for (const [i, r] of sequence.entries()) {
    if (i === 0 || r in observed) continue;
    for (const before of sequence.slice(0, i)) {
      const why = delay(r, before, rsp.desired.resources);
      if (why === undefined) continue;
      normal(rsp, why);
      holdBack(r, observed, rsp, input);
      break;
    }
  }
}

const compose: ComposeFunction = (req, rsp) => {
  const input = req.input as unknown as SequencerInput;
  const observed = observedOf(req);
  // Generated Usages join the desired state only at the end, so the creation rules never see them.
  const usages: Desired = {};
  for (const rule of input.rules) {
    if (rule.createOnly === true && rule.deleteOnly === true) {
      fatal(rsp, `rule for sequence ${JSON.stringify(rule.sequence)} cannot have both deleteOnly and createOnly set`);
      return Promise.resolve(rsp);
    }
    if (input.enableDeletionSequencing === true && rule.createOnly !== true) {
      usagesFor(rule.sequence, observed, rsp.desired.resources, usages, input.replayDeletion ?? true);
    }
    if (rule.deleteOnly !== true) gate(rule.sequence, observed, rsp, input);
  }
  Object.assign(rsp.desired.resources, usages);
  return Promise.resolve(rsp);
};

serve(compose, { name: 'sequencer-function' });
