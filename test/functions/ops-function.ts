// An Operation function written with the official TypeScript SDK, run as a separate gRPC process by the Operations
// integration tests: it returns one ConfigMap (its input's `configMap`, namespace/name) as a desired resource, naming
// the watched resource when a WatchOperation injected one, labelled as its input says. With `failTimes: n` the first n calls for that ConfigMap
// return a fatal result, so a test sees an Operation fail and then succeed on a retry. With `callLog: <file>` each call
// appends the ConfigMap's name to that file, so a test in another process can count calls; with `holdMs: n` a call
// waits n ms before it answers, so a test can stop the caller mid-call.
import { appendFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  fatal,
  getWatchedResource,
  Ready,
  serve,
  setOutput,
  type ComposeFunction,
} from '@crossplane-org/function-sdk-typescript';

interface OpsInput {
  configMap: { namespace: string; name: string; labels?: Record<string, string> };
  failTimes?: number;
  callLog?: string;
  holdMs?: number;
}

const calls = new Map<string, number>();

const operate: ComposeFunction = async (req, rsp) => {
  const input = req.input as unknown as OpsInput;
  const key = `${input.configMap.namespace}/${input.configMap.name}`;
  const call = (calls.get(key) ?? 0) + 1;
  calls.set(key, call);
  if (input.callLog !== undefined) appendFileSync(input.callLog, `${input.configMap.name}\n`);
  if (input.holdMs !== undefined) await sleep(input.holdMs);
  if (call <= (input.failTimes ?? 0)) return fatal(rsp, `failing call ${call} of ${input.failTimes ?? 0} on purpose`);
  const watched = getWatchedResource(req) as { metadata?: { name?: string; resourceVersion?: string } } | undefined;
  const data: Record<string, string> = { call: String(call) };
  if (watched) {
    data.watched = watched.metadata?.name ?? '';
    data.watchedVersion = watched.metadata?.resourceVersion ?? '';
  }
  rsp.desired.resources[input.configMap.name] = {
    resource: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { ...input.configMap }, data },
    connectionDetails: {},
    ready: Ready.READY_UNSPECIFIED,
  };
  return setOutput(rsp, { call });
};

serve(operate, { name: 'ops-function', argv: process.argv.slice(2) });
