import type { ChannelCredentials } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import {
  builtinFunctions,
  FunctionCallError,
  GrpcFunctionRunner,
  insecureCredentials,
  lookupEndpointResolver,
  MeasuredRunner,
  mtlsCredentials,
  RoutingRunner,
  withResponseCache,
  type FunctionObject,
  type FunctionRevisionObject,
  type FunctionRunner,
} from '../functions/index.js';
import { KindNotServedError } from '../kube/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import type { Metrics } from '../metrics/index.js';
import type { InformerLease, InformerRegistry } from '../watch/index.js';
import type { EngineConfig } from './config.js';

/** Where Crossplane runs functions; the last resort of endpoint resolution (dns:///<fn>.<namespace>:9443). */
const FUNCTION_NAMESPACE = 'crossplane-system';
const FUNCTION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Function' };
const FUNCTION_REVISION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'FunctionRevision' };

export type FunctionCallerConfig = Pick<
  EngineConfig,
  | 'functionInsecure'
  | 'functionTlsDir'
  | 'functionTimeoutMs'
  | 'builtinFunctions'
  | 'enableFunctionResponseCache'
  | 'xfnCacheMaxTtlMs'
>;

export interface FunctionCallerOptions {
  informers: InformerRegistry;
  config: FunctionCallerConfig;
  metrics: Metrics;
  log: Logger;
}

/**
 * What running composition functions needs while the engine runs: the client certificate, the caches of Function
 * and FunctionRevision objects that name each function's endpoint, and the gRPC channels. `runner()` is the stack
 * every composite controller calls: the response cache, then timing for function_run_seconds, then the router to an
 * in-process built-in or the gRPC runner.
 *
 * @example
 * const functions = new FunctionCaller({ informers, config, metrics, log });
 * const runner = functions.runner(); // usable once started; calls before that fail with a FunctionCallError
 * await functions.start(signal);
 * await functions.stop(deadline);
 */
export class FunctionCaller implements Lifecycle {
  private functionLease: InformerLease | undefined;
  private functionRevisionLease: InformerLease | undefined;
  private grpc: GrpcFunctionRunner | undefined;
  private credentials: ChannelCredentials | Error | undefined;

  constructor(private readonly options: FunctionCallerOptions) {}

  /** Loads the client certificate (a missing one is a warning: built-ins still run) and syncs the Function caches. */
  async start(): Promise<void> {
    const { config, log, informers } = this.options;
    this.credentials = config.functionInsecure
      ? insecureCredentials()
      : await mtlsCredentials(config.functionTlsDir).catch((err: unknown) => err as Error);
    if (this.credentials instanceof Error) {
      log.warn(
        { error: this.credentials.message },
        'no function client certificate: functions that are not built in cannot be called (use --function-insecure for plaintext)',
      );
    }
    this.functionLease = await informers.acquire(FUNCTION.apiVersion, FUNCTION.kind);
    this.functionRevisionLease = await informers
      .acquire(FUNCTION_REVISION.apiVersion, FUNCTION_REVISION.kind)
      .catch((err: unknown) => {
        // FunctionRevisions exist only where Crossplane's package manager runs; endpoints then come from elsewhere.
        if (err instanceof KindNotServedError) return undefined;
        throw err;
      });
    await Promise.all([this.functionLease.informer.waitForSync(), this.functionRevisionLease?.informer.waitForSync()]);
  }

  /** Closes the gRPC channels and releases the Function caches; calls in flight fail, nothing waits for them. */
  async stop(): Promise<void> {
    this.grpc?.close();
    await this.functionLease?.release();
    await this.functionRevisionLease?.release();
  }

  /** The runner stack of every composite controller; built once per engine, before start. */
  runner(): FunctionRunner {
    const { config, metrics } = this.options;
    const router = new RoutingRunner({
      builtins: builtinFunctions(),
      enabled: config.builtinFunctions,
      dropBuiltinTtl: true,
      packageOf: async (name) => {
        const fn = await this.getFunction(name);
        if (!fn) {
          throw new FunctionCallError(
            name,
            undefined,
            `Function "${name}" not found: install a pkg.crossplane.io/v1 Function named "${name}" or fix the Composition's functionRef`,
          );
        }
        return fn.spec?.package ?? '';
      },
      remote: { run: (call) => this.runRemote(call) },
    });
    // Measured below the cache: function_run_seconds counts calls that ran, not answers served from the cache.
    const { enableFunctionResponseCache: enabled, xfnCacheMaxTtlMs: maxTtlMs } = config;
    return withResponseCache(new MeasuredRunner(router, metrics.functionRun), { enabled, maxTtlMs });
  }

  private getFunction(name: string): Promise<FunctionObject | undefined> {
    return Promise.resolve(this.functionLease?.informer.store.get(name) as FunctionObject | undefined);
  }

  private runRemote: FunctionRunner['run'] = (call) => {
    if (!this.credentials || this.credentials instanceof Error) {
      const why = this.credentials?.message ?? 'not started';
      return Promise.reject(
        new FunctionCallError(
          call.functionName,
          call.step,
          `${why}; mount the client certificate or use --function-insecure`,
        ),
      );
    }
    const lookup = {
      getFunction: (name: string): Promise<FunctionObject | undefined> => this.getFunction(name),
      listRevisions: (): Promise<readonly FunctionRevisionObject[]> =>
        Promise.resolve((this.functionRevisionLease?.informer.store.list() ?? []) as FunctionRevisionObject[]),
    };
    // Channels open on the first remote call, so an engine that runs only built-ins never dials anything.
    this.grpc ??= new GrpcFunctionRunner({
      resolveEndpoint: lookupEndpointResolver(lookup, FUNCTION_NAMESPACE),
      credentials: this.credentials,
      timeoutMs: this.options.config.functionTimeoutMs,
    });
    return this.grpc.run(call);
  };
}
