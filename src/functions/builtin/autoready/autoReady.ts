// The built-in function-auto-ready: marks observed desired composed resources READY_TRUE when they are healthy.
// Order per resource (fn.go): CEL customisation (feature gate CELHealthcheckCustomizations), then the kind's
// health check, else condition Ready=True. It never touches the XR, and never sets READY_FALSE except via CEL.
import { parse as parseCel } from '@marcbachmann/cel-js';
import { parseDuration } from '../../../apis/index.js';
import type { JsonObject, Resource, RunFunctionRequest, RunFunctionResponse } from '../../types.js';
import { getValue } from '../fieldpath.js';
import { DEFAULT_TTL_MS, fatal, responseTo, warning } from '../response.js';
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
  celHealthCheckCustomization?: Record<string, string>;
  celHealthCheckCustomizationFrom?: string;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The key of a kind in a CEL customisation map: <group>_<version>_<kind>. */
function gvkKey(object: JsonObject): string {
  const apiVersion = str(object.apiVersion);
  const slash = apiVersion.lastIndexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return `${group}_${apiVersion.slice(slash + 1)}_${str(object.kind)}`;
}

/** The CEL map: inline in the input, else read from the request context at a field path. */
function celMap(input: Input, req: RunFunctionRequest): Record<string, unknown> {
  if (input.celHealthCheckCustomization !== undefined) return input.celHealthCheckCustomization;
  if (input.celHealthCheckCustomizationFrom === undefined) return {};
  try {
    const found: unknown = getValue(req.context ?? {}, input.celHealthCheckCustomizationFrom);
    return found !== null && typeof found === 'object' ? (found as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function celReady(expression: string, object: JsonObject): boolean {
  const out: unknown = parseCel(expression)({ object });
  if (typeof out !== 'boolean') throw new Error(`expression returned ${typeof out}, not a bool`);
  return out;
}

/** READY_TRUE or READY_FALSE from a CEL customisation; undefined when none applies or it fails (warned). */
function fromCel(
  rsp: RunFunctionResponse,
  name: string,
  expression: unknown,
  observed: JsonObject,
): boolean | undefined {
  if (typeof expression !== 'string') return undefined;
  try {
    return celReady(expression, observed);
  } catch (err) {
    warning(rsp, `cannot evaluate CEL health check for resource "${name}": ${(err as Error).message}`);
    return undefined;
  }
}

interface Assessment {
  rsp: RunFunctionResponse;
  cel: Record<string, unknown>;
}

function assess({ rsp, cel }: Assessment, name: string, desired: Resource, observed: JsonObject): void {
  const byCel = fromCel(rsp, name, cel[gvkKey(observed)], observed);
  if (byCel !== undefined) {
    desired.ready = byCel ? 'READY_TRUE' : 'READY_FALSE';
    return;
  }
  const check = healthCheckFor(observed) ?? readyConditionTrue;
  if (check(observed)) desired.ready = 'READY_TRUE';
}

/** Desired composed resources that are observed and whose readiness no earlier step decided. */
function undecided(req: RunFunctionRequest, rsp: RunFunctionResponse): [string, Resource, JsonObject][] {
  const out: [string, Resource, JsonObject][] = [];
  for (const [name, desired] of Object.entries(rsp.desired?.resources ?? {})) {
    const observed = req.observed?.resources?.[name]?.resource;
    if (observed !== undefined && (desired.ready ?? 'READY_UNSPECIFIED') === 'READY_UNSPECIFIED') {
      out.push([name, desired, observed]);
    }
  }
  return out;
}

/**
 * function-auto-ready as a built-in.
 *
 * @example builtins.set(AUTO_READY, autoReady({ ttlMs: 60_000 }))
 */
export function autoReady(options: AutoReadyOptions = {}): (req: RunFunctionRequest) => RunFunctionResponse {
  return (req) => {
    const input = (req.input ?? {}) as Input;
    let ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    try {
      if (input.ttl !== undefined) ttlMs = parseDuration(input.ttl);
    } catch (err) {
      return fatal(responseTo(req, ttlMs), `cannot parse ttl: ${(err as Error).message}`);
    }
    const rsp = responseTo(req, ttlMs);
    const cel = options.celHealthChecks === true ? celMap(input, req) : {};
    for (const [name, desired, observed] of undecided(req, rsp)) assess({ rsp, cel }, name, desired, observed);
    return rsp;
  };
}
