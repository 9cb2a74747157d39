// The built-in function-auto-ready v0.7: marks observed desired composed resources READY_TRUE when they are healthy.
// Three passes as fn.go: CEL customisations (feature gate CELHealthcheckCustomizations), then the kind's health
// check, then condition Ready=True. It never touches the XR, and never sets READY_FALSE except via CEL.
import type { JsonObject, Resource, RunFunctionRequest, RunFunctionResponse } from '../../types.js';
import { parseGoDuration } from '../goduration.js';
import { DEFAULT_TTL_MS, fatal, responseTo, warning } from '../response.js';
import { celHealthChecks, celReadiness, gvkKey } from './cel.js';
import { healthCheckFor, readyConditionTrue } from './healthChecks.js';

export const AUTO_READY = 'function-auto-ready';

export interface AutoReadyOptions {
  /** --ttl of the real function; default 1m. */
  ttlMs?: number;
  /** The alpha feature gate CELHealthcheckCustomizations; default off, as upstream. */
  celHealthChecks?: boolean;
}

interface Input {
  ttl?: string;
  celHealthCheckCustomization?: Record<string, unknown>;
  celHealthCheckCustomizationFrom?: string;
}

type Undecided = [name: string, desired: Resource, observed: JsonObject];

/** Desired composed resources that are observed and whose readiness nothing decided yet (fn.go:100-110). */
function undecided(req: RunFunctionRequest, rsp: RunFunctionResponse): Undecided[] {
  const out: Undecided[] = [];
  for (const [name, desired] of Object.entries(rsp.desired?.resources ?? {})) {
    const observed = req.observed?.resources?.[name]?.resource;
    if (observed !== undefined && (desired.ready ?? 'READY_UNSPECIFIED') === 'READY_UNSPECIFIED') {
      out.push([name, desired, observed]);
    }
  }
  return out;
}

/** The first pass: a CEL customisation for the kind decides, unless it fails (a warning) or is not boolean. */
function celPass(req: RunFunctionRequest, rsp: RunFunctionResponse, input: Input): void {
  const checks = celHealthChecks(input, req.context ?? {});
  for (const [, desired, observed] of undecided(req, rsp)) {
    const expression = checks.get(gvkKey(observed));
    if (expression === undefined) continue;
    try {
      const ready = celReadiness(expression, observed);
      if (ready !== 'READY_UNSPECIFIED') desired.ready = ready;
    } catch (err) {
      // fn.go:124 response.Warning(rsp, err): the error text alone, without the resource's name.
      warning(rsp, (err as Error).message);
    }
  }
}

/**
 * The SDK's GetDesiredComposedResources + SetDesiredComposedResources round trip (fn.go:75, fn.go:182): the
 * desired state always exists afterwards, and each desired resource keeps only its resource and readiness.
 */
function roundTripDesired(rsp: RunFunctionResponse): void {
  const desired = (rsp.desired ??= {});
  const resources = (desired.resources ??= {});
  for (const [name, r] of Object.entries(resources)) {
    const kept: Resource = { resource: r.resource ?? {} };
    if (r.ready !== undefined) kept.ready = r.ready;
    resources[name] = kept;
  }
}

/**
 * function-auto-ready as a built-in.
 *
 * @example builtins.set(AUTO_READY, autoReady({ ttlMs: 60_000 }))
 */
export function autoReady(options: AutoReadyOptions = {}): (req: RunFunctionRequest) => RunFunctionResponse {
  return (req) => {
    const input = (req.input ?? {}) as Input;
    const rsp = responseTo(req, options.ttlMs ?? DEFAULT_TTL_MS);
    if (typeof input.ttl === 'string' && input.ttl !== '') {
      try {
        rsp.meta = { ...rsp.meta, ttlMs: Number(parseGoDuration(input.ttl) / 1_000_000n) };
      } catch (err) {
        // fn.go:49
        return fatal(rsp, `cannot set ttl: ${(err as Error).message}`);
      }
    }
    roundTripDesired(rsp);
    if (options.celHealthChecks === true) celPass(req, rsp, input);
    for (const [, desired, observed] of undecided(req, rsp)) {
      if (healthCheckFor(observed)?.(observed) === true) desired.ready = 'READY_TRUE';
    }
    for (const [, desired, observed] of undecided(req, rsp)) {
      if (readyConditionTrue(observed)) desired.ready = 'READY_TRUE';
    }
    return rsp;
  };
}
