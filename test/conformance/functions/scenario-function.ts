// A real composition function for the conformance scenarios, served with the official TypeScript SDK. It stands in
// for the upstream functions the scenarios use and picks its behaviour by the kind of its input only, never by the
// function's name, so one process serves every step:
// - dummy.fn.crossplane.io/v1beta1 Response (function-dummy): overlays input.response on the desired state;
// - python.fn.crossplane.io/v1beta1 Script (function-python): runs the script's compose(req, rsp) with python3 and
//   the stand-in SDK under ./python.
// Start it like the probe: `node --import tsx scenario-function.ts --insecure --address 127.0.0.1:<port>`.
import { spawn } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import {
  fatal,
  Ready,
  RunFunctionRequest,
  RunFunctionResponse,
  serve,
  type ComposeFunction,
  type ComposeResponse,
  type Resource,
  type State,
} from '@crossplane-org/function-sdk-typescript';

/** The script to hand to startFunction. */
export const SCENARIO_FUNCTION = fileURLToPath(import.meta.url);
/** Holds the crossplane.function stand-in package and run_script.py; first on every script's PYTHONPATH. */
export const PYTHON_SHIM_DIR = fileURLToPath(new URL('./python', import.meta.url));
/** How long one script may run before it is killed and answered with a FATAL result. */
export const SCRIPT_DEADLINE_MS = 10_000;

type Json = Record<string, unknown>;
type Duration = NonNullable<NonNullable<RunFunctionResponse['meta']>['ttl']>;
type Handler = (
  req: RunFunctionRequest,
  rsp: ComposeResponse,
  input: Json,
) => RunFunctionResponse | Promise<RunFunctionResponse>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// --- function-dummy ---

/** Objects merge key by key; anything else, arrays included, is replaced by the overlay's value. */
function deepMerge(base: Json, top: Json): Json {
  const out: Json = { ...base };
  for (const [key, value] of Object.entries(top)) {
    const current = out[key];
    out[key] = isObject(current) && isObject(value) ? deepMerge(current, value) : value;
  }
  return out;
}

function mergeStruct(base: Json | undefined, top: Json | undefined): Json | undefined {
  if (top === undefined) return base;
  return base === undefined ? top : deepMerge(base, top);
}

function mergeResource(base: Resource | undefined, top: Resource): Resource {
  return {
    resource: mergeStruct(base?.resource, top.resource),
    connectionDetails: { ...base?.connectionDetails, ...top.connectionDetails },
    // As with proto.Merge, an unset enum in the overlay keeps the base's value.
    ready: top.ready === Ready.READY_UNSPECIFIED ? (base?.ready ?? Ready.READY_UNSPECIFIED) : top.ready,
  };
}

/** protojson writes a Duration as "<seconds>[.<fraction>]s", which the SDK's fromJSON does not read. */
function durationOf(value: unknown): Duration {
  if (isObject(value)) return { seconds: Number(value.seconds ?? 0), nanos: Number(value.nanos ?? 0) };
  const match = typeof value === 'string' ? /^(\d+)(?:\.(\d{1,9}))?s$/.exec(value) : null;
  if (match === null) throw new Error(`invalid duration ${JSON.stringify(value)}`);
  return { seconds: Number(match[1]), nanos: Number((match[2] ?? '').padEnd(9, '0')) };
}

/** input.response is a RunFunctionResponse in protojson form, given as an object or as YAML/JSON text. */
function parseOverlay(value: unknown): RunFunctionResponse {
  const raw: unknown = typeof value === 'string' ? parseYaml(value) : value;
  if (!isObject(raw)) throw new Error('not an object');
  const overlay = RunFunctionResponse.fromJSON(raw);
  const ttl = isObject(raw.meta) ? raw.meta.ttl : undefined;
  if (overlay.meta !== undefined) overlay.meta.ttl = ttl === undefined ? undefined : durationOf(ttl);
  return overlay;
}

function overlayState(rsp: ComposeResponse, desired: State | undefined): void {
  if (desired === undefined) return;
  if (desired.composite !== undefined) rsp.desired.composite = mergeResource(rsp.desired.composite, desired.composite);
  for (const [name, resource] of Object.entries(desired.resources)) {
    rsp.desired.resources[name] = mergeResource(rsp.desired.resources[name], resource);
  }
}

/** What function-dummy does: the request's desired state and context with the input's response merged on top. */
const dummy: Handler = (_req, rsp, input) => {
  let overlay: RunFunctionResponse;
  try {
    overlay = parseOverlay(input.response);
  } catch (err) {
    return fatal(rsp, `cannot parse input.response: ${errorText(err)}`);
  }
  overlayState(rsp, overlay.desired);
  rsp.results.push(...overlay.results);
  rsp.conditions.push(...overlay.conditions);
  rsp.context = mergeStruct(rsp.context, overlay.context);
  rsp.output = mergeStruct(rsp.output, overlay.output);
  // response.to leaves requirements unset, so the overlay's are the only ones.
  rsp.requirements = overlay.requirements;
  const ttl = overlay.meta?.ttl;
  if (ttl !== undefined) rsp.meta = { tag: rsp.meta?.tag ?? '', ttl };
  return rsp;
};

// --- function-python ---

interface ChildOutcome {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Runs run_script.py with the envelope on stdin; the shim goes first on PYTHONPATH to shadow a real SDK. */
function runPython(envelope: string): Promise<ChildOutcome> {
  const pythonPath = [PYTHON_SHIM_DIR, process.env.PYTHONPATH].filter((p) => p !== undefined && p !== '');
  const env = { ...process.env, PYTHONPATH: pythonPath.join(delimiter), PYTHONDONTWRITEBYTECODE: '1' };
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-B', join(PYTHON_SHIM_DIR, 'run_script.py')], { env });
    const out: ChildOutcome = { code: null, stdout: '', stderr: '', timedOut: false };
    const timer = setTimeout(() => {
      out.timedOut = true;
      child.kill('SIGKILL');
    }, SCRIPT_DEADLINE_MS);
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out.stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (out.stderr += s));
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ ...out, code });
    });
    // A child that exits before reading stdin is reported by its exit status, not by EPIPE here.
    child.stdin.on('error', () => undefined);
    child.stdin.end(envelope);
  });
}

/** Why python3 failed: its exit status and the end of its stderr, where the traceback ends. */
function exitText(out: ChildOutcome): string {
  const tail = out.stderr.trim().split('\n').slice(-5).join('\n');
  return `python3 exited with ${String(out.code)}${tail === '' ? '' : `: ${tail}`}`;
}

/** What function-python does: rsp starts as response.to(req), and the script's compose(req, rsp) fills it in. */
const python: Handler = async (req, rsp, input) => {
  if (typeof input.script !== 'string') return fatal(rsp, 'input.script must be a string');
  const request = RunFunctionRequest.toJSON(req);
  const envelope = JSON.stringify({ script: input.script, request, response: RunFunctionResponse.toJSON(rsp) });
  let out: ChildOutcome;
  try {
    out = await runPython(envelope);
  } catch (err) {
    return fatal(rsp, `cannot run python3: ${errorText(err)}`);
  }
  if (out.timedOut) return fatal(rsp, `script did not finish within ${SCRIPT_DEADLINE_MS / 1000}s`);
  if (out.code !== 0) return fatal(rsp, exitText(out));
  try {
    return RunFunctionResponse.fromJSON(JSON.parse(out.stdout));
  } catch (err) {
    return fatal(rsp, `cannot read the script's response: ${errorText(err)}`);
  }
};

// --- dispatch ---

const HANDLERS: Record<string, Handler | undefined> = {
  'dummy.fn.crossplane.io/v1beta1/Response': dummy,
  'python.fn.crossplane.io/v1beta1/Script': python,
};

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Chooses the behaviour by the input's apiVersion and kind; any other input is a FATAL result. */
export const compose: ComposeFunction = (req, rsp) => {
  const input: Json = req.input ?? {};
  const kind = `${text(input.apiVersion)}/${text(input.kind)}`;
  const handler = HANDLERS[kind];
  return handler === undefined ? fatal(rsp, `unsupported input ${kind}`) : handler(req, rsp, input);
};

function isMain(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(SCENARIO_FUNCTION);
  } catch {
    return false;
  }
}

// Importing this module (for SCENARIO_FUNCTION) must not start a server; running it does.
if (isMain()) serve(compose, { name: 'scenario-function' });
