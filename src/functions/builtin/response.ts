// Helpers mirroring function-sdk-go's response package, so built-ins build responses exactly as the real
// functions do: response.To passes the request's desired state and context through.
import type { RunFunctionRequest, RunFunctionResponse } from '../types.js';
import { echoTag } from '../requestTag.js';

/** The SDK's response.DefaultTTL. */
export const DEFAULT_TTL_MS = 60_000;

export function responseTo(req: RunFunctionRequest, ttlMs: number = DEFAULT_TTL_MS): RunFunctionResponse {
  const rsp: RunFunctionResponse = { meta: echoTag(req, ttlMs) };
  if (req.desired !== undefined) rsp.desired = structuredClone(req.desired);
  if (req.context !== undefined) rsp.context = structuredClone(req.context);
  return rsp;
}

function result(
  rsp: RunFunctionResponse,
  severity: 'SEVERITY_FATAL' | 'SEVERITY_WARNING' | 'SEVERITY_NORMAL',
  message: string,
): void {
  (rsp.results ??= []).push({ severity, message, target: 'TARGET_COMPOSITE' });
}

export function fatal(rsp: RunFunctionResponse, message: string): RunFunctionResponse {
  result(rsp, 'SEVERITY_FATAL', message);
  return rsp;
}

export function warning(rsp: RunFunctionResponse, message: string): void {
  result(rsp, 'SEVERITY_WARNING', message);
}

export function normal(rsp: RunFunctionResponse, message: string): void {
  result(rsp, 'SEVERITY_NORMAL', message);
}
