// Calls functions over gRPC: one pooled channel per endpoint with keep-alive, a deadline per call, retries on
// UNAVAILABLE with exponential backoff, and the v1beta1 fallback for functions that only serve the old service.
import { Client, Metadata, status, type ChannelCredentials, type ServiceError } from '@grpc/grpc-js';
import { formatDuration } from '../apis/index.js';
import { backoffDelay, errorMessage, systemClock, type Clock } from '../base/index.js';
import { requestToWire, responseFromWire } from './codec.js';
import type { EndpointResolver } from './endpoint.js';
import { FunctionCallError } from './errors.js';
import { MAX_RESPONSE_BYTES } from './limits.js';
import { RUN_FUNCTION_V1, RUN_FUNCTION_V1BETA1, runFunctionMethod } from './proto.js';
import type { FunctionCall, FunctionRunner } from './runner.js';
import type { RunFunctionResponse } from './types.js';

export interface GrpcRunnerDeps {
  resolveEndpoint: EndpointResolver;
  /**
   * The credentials of a function's channel: one for every function, or chosen per function and asked on every call
   * (those compositor runs trust its own CA, the others --function-tls-dir). When they are another object than the
   * channel to the endpoint was opened with (a renewed certificate or CA), that channel is closed and a new one opened;
   * calls in flight on it finish. A function whose credentials cannot be had throws here; its call fails naming the
   * endpoint.
   */
  credentials: ChannelCredentials | ((functionName: string) => ChannelCredentials);
  /**
   * Test only (docs/testing.md#function-packages): dials the address given for an endpoint, such as a function's
   * Service DNS target mapped to a loopback port, while TLS still verifies the endpoint's own host name
   * (`grpc.ssl_target_name_override`). Never set outside tests: it bypasses name resolution.
   */
  dialOverrides?: Readonly<Record<string, string>>;
  /** Deadline of one call including its retries (--function-timeout). Default 60s. */
  timeoutMs?: number;
  /** Attempts per call when the function is UNAVAILABLE. Default 4. */
  attempts?: number;
  /** First retry delay, doubled per attempt up to maxBackoffMs. Defaults 100ms and 2s. */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** The calls' deadlines (wall clock: gRPC takes them as dates), their durations and the retry pauses. */
  clock?: Clock;
  /** Called after every call with its outcome, for metrics. */
  observe?: (functionName: string, outcome: 'success' | 'error', seconds: number) => void;
}

/**
 * Keep-alive pings every 5 minutes: Go gRPC servers (every Crossplane SDK function) answer pings more frequent
 * than their 5-minute enforcement minimum with GOAWAY "too_many_pings", which would drop the pooled channel.
 * Reconnects back off to 5 s at most, not gRPC's 120 s: a channel that failed while a function's runtime was down
 * would otherwise fail every call fast for up to two minutes after it came up (calls do not wait for ready), and the
 * XRs' own backoff already bounds how often a dead endpoint is tried.
 */
const CHANNEL_OPTIONS = {
  'grpc.keepalive_time_ms': 300_000,
  'grpc.keepalive_timeout_ms': 20_000,
  'grpc.initial_reconnect_backoff_ms': 1_000,
  'grpc.max_reconnect_backoff_ms': 5_000,
  'grpc.max_receive_message_length': MAX_RESPONSE_BYTES,
};

export class GrpcFunctionRunner implements FunctionRunner {
  private readonly clients = new Map<string, { client: Client; credentials: ChannelCredentials }>();

  constructor(private readonly deps: GrpcRunnerDeps) {}

  async run(call: FunctionCall): Promise<RunFunctionResponse> {
    const clock = this.deps.clock ?? systemClock;
    const started = clock.now();
    try {
      const endpoint = await this.deps.resolveEndpoint(call.functionName).catch((err: unknown) => {
        throw new FunctionCallError(call.functionName, call.step, errorText(err), { cause: err });
      });
      const rsp = await this.callWithRetry(call, endpoint, started + this.timeoutMs(call));
      this.deps.observe?.(call.functionName, 'success', (clock.now() - started) / 1000);
      return rsp;
    } catch (err) {
      this.deps.observe?.(call.functionName, 'error', (clock.now() - started) / 1000);
      throw err;
    }
  }

  /** The step's own timeout, else --function-timeout. */
  private timeoutMs(call: FunctionCall): number {
    return call.timeoutMs ?? this.deps.timeoutMs ?? 60_000;
  }

  /** Closes every pooled channel; later calls open new ones. */
  close(): void {
    for (const { client } of this.clients.values()) client.close();
    this.clients.clear();
  }

  private client(endpoint: string, functionName: string): Client {
    const { credentials, dialOverrides } = this.deps;
    const creds = typeof credentials === 'function' ? credentials(functionName) : credentials;
    const pooled = this.clients.get(endpoint);
    if (pooled?.credentials === creds) return pooled.client;
    pooled?.client.close();
    const address = dialOverrides?.[endpoint];
    const host = targetHost(endpoint);
    const options =
      address === undefined
        ? CHANNEL_OPTIONS
        : { ...CHANNEL_OPTIONS, 'grpc.ssl_target_name_override': host, 'grpc.default_authority': host };
    const client = new Client(address ?? endpoint, creds, options);
    this.clients.set(endpoint, { client, credentials: creds });
    return client;
  }

  private async callWithRetry(call: FunctionCall, endpoint: string, deadline: number): Promise<RunFunctionResponse> {
    const attempts = this.deps.attempts ?? 4;
    const clock = this.deps.clock ?? systemClock;
    const backoff = { baseMs: this.deps.backoffMs ?? 100, capMs: this.deps.maxBackoffMs ?? 2000 };
    for (let attempt = 1; ; attempt++) {
      const delay = backoffDelay(backoff, attempt - 1);
      try {
        return await this.callOnce(call, endpoint, deadline);
      } catch (err) {
        const retry = isUnavailable(err) && attempt < attempts && clock.now() + delay < deadline;
        if (!retry) throw this.wrap(call, endpoint, err);
        await clock.sleep(delay);
      }
    }
  }

  private async callOnce(call: FunctionCall, endpoint: string, deadline: number): Promise<RunFunctionResponse> {
    try {
      return await this.unary(RUN_FUNCTION_V1, call, endpoint, deadline);
    } catch (err) {
      if ((err as Partial<ServiceError>).code !== status.UNIMPLEMENTED) throw err;
      return this.unary(RUN_FUNCTION_V1BETA1, call, endpoint, deadline);
    }
  }

  private unary(path: string, call: FunctionCall, endpoint: string, deadline: number): Promise<RunFunctionResponse> {
    const method = runFunctionMethod();
    const client = this.client(endpoint, call.functionName);
    return new Promise((resolve, reject) => {
      const grpcCall = client.makeUnaryRequest(
        path,
        method.serializeRequest,
        method.deserializeResponse,
        requestToWire(call.request),
        new Metadata(),
        { deadline },
        (err, value) => {
          call.signal?.removeEventListener('abort', cancel);
          if (err) {
            reject(err);
            return;
          }
          // A throw here would escape into grpc-js's event handling and end the process.
          try {
            resolve(responseFromWire(value ?? {}));
          } catch (convertErr) {
            reject(convertErr instanceof Error ? convertErr : new Error(String(convertErr)));
          }
        },
      );
      const cancel = (): void => {
        grpcCall.cancel();
      };
      call.signal?.addEventListener('abort', cancel, { once: true });
    });
  }

  private wrap(call: FunctionCall, endpoint: string, err: unknown): FunctionCallError {
    if (err instanceof FunctionCallError) return err;
    const code = (err as Partial<ServiceError>).code;
    const detail =
      code === status.DEADLINE_EXCEEDED
        ? `timed out after ${formatDuration(this.timeoutMs(call))} (${call.timeoutMs === undefined ? '--function-timeout' : "the step's timeout"})`
        : tooLarge(err)
          ? `${errorText(err)}: a response may be at most ${MAX_RESPONSE_BYTES} bytes (4 MiB), as in Crossplane`
          : errorText(err);
    return new FunctionCallError(call.functionName, call.step, `cannot call ${endpoint}: ${detail}`, {
      cause: err,
      code,
    });
  }
}

/**
 * The host name of a gRPC target, which TLS verifies the server's certificate against.
 *
 * @example targetHost('dns:///function-kcl.crossplane-system:9443') // 'function-kcl.crossplane-system'
 */
export function targetHost(target: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:(.*)$/i.exec(target);
  // host:port has no scheme: what follows its colon is the port.
  const rest = scheme?.[1] !== undefined && !/^\d+$/.test(scheme[1]) ? scheme[1].replace(/^\/\/[^/]*\//, '') : target;
  return rest.replace(/:\d+$/, '');
}

/** grpc-js refused a response past grpc.max_receive_message_length (not the function refusing a large request). */
function tooLarge(err: unknown): boolean {
  return (
    (err as Partial<ServiceError>).code === status.RESOURCE_EXHAUSTED && /^Received message larger/.test(errorText(err))
  );
}

function isUnavailable(err: unknown): boolean {
  return (err as Partial<ServiceError>).code === status.UNAVAILABLE;
}

/** A gRPC error's details (the server's own words), else its message. */
function errorText(err: unknown): string {
  return (err instanceof Error ? (err as Partial<ServiceError>).details : undefined) ?? errorMessage(err);
}
