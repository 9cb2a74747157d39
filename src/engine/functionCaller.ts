import { credentials, type ChannelCredentials } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import {
  builtinFunctions,
  ENDPOINT_ANNOTATION,
  FunctionCallError,
  PACKAGE_LABEL,
  GrpcFunctionRunner,
  insecureCredentials,
  LimitedRunner,
  lookupEndpointResolver,
  MeasuredRunner,
  mtlsCredentials,
  RoutingRunner,
  withResponseCache,
  type BuiltinPolicy,
  type FunctionObject,
  type FunctionRevisionObject,
  type FunctionRunner,
} from '../functions/index.js';
import { KindNotServedError } from '../kube/index.js';
import type { Lifecycle } from '../lifecycle/index.js';
import type { Metrics } from '../metrics/index.js';
import type { TlsBundle } from '../packages/index.js';
import type { InformerLease, InformerRegistry } from '../watch/index.js';
import type { EngineConfig } from './config.js';

/**
 * Where Crossplane runs functions; with --package-runtime=External the last resort of endpoint resolution
 * (dns:///<fn>.<namespace>:9443). With Deployment, compositor's own namespace takes its place.
 */
const FUNCTION_NAMESPACE = 'crossplane-system';
const FUNCTION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'Function' };
const FUNCTION_REVISION = { apiVersion: 'pkg.crossplane.io/v1', kind: 'FunctionRevision' };

export type FunctionCallerConfig = Pick<
  EngineConfig,
  | 'functionInsecure'
  | 'functionTlsDir'
  | 'functionTimeoutMs'
  | 'builtinFunctions'
  | 'builtinFunctionRegistries'
  | 'enableFunctionResponseCache'
  | 'xfnCacheMaxTtlMs'
  | 'maxComposedResources'
  | 'packageRuntime'
  | 'leaderElectionNamespace'
>;

export interface FunctionCallerOptions {
  informers: InformerRegistry;
  config: FunctionCallerConfig;
  metrics: Metrics;
  log: Logger;
  /**
   * With --package-runtime=Deployment: compositor's client certificate and the CA it trusts, as last loaded (a new
   * object when renewed), and why there is none yet.
   */
  packageTls?: PackageTls;
  /** Test only: dial these addresses for these endpoints (GrpcRunnerDeps.dialOverrides, docs/testing.md). */
  dialOverrides?: Readonly<Record<string, string>>;
}

/** Where the client certificate for the functions compositor runs comes from (packages' ClientCertificate). */
export interface PackageTls {
  current(): TlsBundle | undefined;
  problem(): string;
}

/** The flags that decide which Functions run in-process (chooseRuntime). */
export function builtinPolicy(
  config: Pick<EngineConfig, 'builtinFunctions' | 'builtinFunctionRegistries'>,
): BuiltinPolicy {
  return { enabled: config.builtinFunctions, registries: config.builtinFunctionRegistries };
}

/** A Function something other than compositor runs: one with an explicit endpoint, or every one when External. */
export function runsExternally(fn: FunctionObject, packageRuntime: FunctionCallerConfig['packageRuntime']): boolean {
  return packageRuntime === 'External' || (fn.metadata.annotations?.[ENDPOINT_ANNOTATION] ?? '') !== '';
}

/**
 * What running composition functions needs while the engine runs: the client certificate, the caches of Function
 * and FunctionRevision objects that name each function's endpoint, and the gRPC channels. `runner()` is the stack
 * every composite controller calls: the response limits (limits.ts), the response cache, then timing for
 * function_run_seconds, then the router to an in-process built-in or the gRPC runner.
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
  /**
   * Credentials for the functions compositor runs (its client certificate, trusting its own CA) and the bundle they
   * were made of: a renewed bundle makes new credentials, and the gRPC runner reopens channels made with the old.
   */
  private packageCredentials: { bundle: TlsBundle; credentials: ChannelCredentials } | undefined;

  constructor(private readonly options: FunctionCallerOptions) {}

  /** Loads the client certificates (a missing one is a warning: built-ins still run) and syncs the Function caches. */
  async start(): Promise<void> {
    const { config, log, informers } = this.options;
    await this.loadCredentials();
    if (this.credentials instanceof Error) {
      // With Deployment (the default) only Functions with an explicit endpoint need it: no reason for a warning.
      const external = config.packageRuntime === 'External';
      const which = external ? 'functions that are not built in' : 'annotated Functions';
      log[external ? 'warn' : 'info'](
        { error: this.credentials.message },
        `no function client certificate in --function-tls-dir: ${which} cannot be called (use --function-insecure for plaintext)`,
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

  /**
   * The runner stack of every composite controller; built once per engine, before start. `responseCache: false`:
   * without the response cache, for Operations, which run their functions every time.
   */
  runner(options: { responseCache?: boolean } = {}): FunctionRunner {
    const { config, metrics } = this.options;
    const router = new RoutingRunner({
      builtins: builtinFunctions(),
      policy: builtinPolicy(config),
      dropBuiltinTtl: true,
      functionOf: async (name) => {
        const fn = await this.getFunction(name);
        if (!fn) {
          throw new FunctionCallError(
            name,
            undefined,
            `Function "${name}" not found: install a pkg.crossplane.io/v1 Function named "${name}" or fix the Composition's functionRef`,
          );
        }
        return fn;
      },
      onChoice: (name, choice) => {
        const fields = { function: name, builtin: choice.builtin ?? false };
        if (choice.invalidAnnotation === undefined) this.options.log.info(fields, choice.message);
        else this.options.log.warn(fields, choice.message);
      },
      remote: { run: (call) => this.runRemote(call) },
    });
    // Measured below the cache: function_run_seconds counts calls that ran, not answers served from the cache.
    const { xfnCacheMaxTtlMs: maxTtlMs } = config;
    const enabled = config.enableFunctionResponseCache && options.responseCache !== false;
    const cached = withResponseCache(new MeasuredRunner(router, metrics.functionRun), {
      enabled,
      maxTtlMs,
      metrics: metrics.functionResponseCache,
    });
    // Outermost, so nothing past a limit is cached, digested or read by the pipeline.
    return new LimitedRunner(cached, { maxComposedResources: config.maxComposedResources });
  }

  private async loadCredentials(): Promise<void> {
    const { config } = this.options;
    this.credentials = config.functionInsecure
      ? insecureCredentials()
      : await mtlsCredentials(config.functionTlsDir).catch((err: unknown) => err as Error);
  }

  /** The credentials of the current client certificate, made anew when it was renewed; an Error while there is none. */
  private packageCredentialsNow(): ChannelCredentials | Error {
    const { packageTls } = this.options;
    const bundle = packageTls?.current();
    if (packageTls === undefined || bundle === undefined) {
      return new Error(packageTls?.problem() ?? 'no client certificate for the functions compositor runs');
    }
    if (this.packageCredentials?.bundle !== bundle) {
      const made = credentials.createSsl(Buffer.from(bundle.ca), Buffer.from(bundle.key), Buffer.from(bundle.cert));
      this.packageCredentials = { bundle, credentials: made };
    }
    return this.packageCredentials.credentials;
  }

  private getFunction(name: string): Promise<FunctionObject | undefined> {
    return Promise.resolve(this.functionLease?.informer.store.get(name) as FunctionObject | undefined);
  }

  private revisions(): FunctionRevisionObject[] {
    return this.functionRevisionLease?.informer.store.list() ?? [];
  }

  private runRemote: FunctionRunner['run'] = async (call) => {
    const fn = await this.getFunction(call.functionName);
    const external = fn === undefined || runsExternally(fn, this.options.config.packageRuntime);
    if (!external) this.checkServed(fn, call.step);
    const creds = external ? this.credentials : this.packageCredentialsNow();
    if (!creds || creds instanceof Error) {
      const why = creds === undefined ? 'not started' : creds.message;
      const fix = external ? '; mount the client certificate or use --function-insecure' : '';
      throw new FunctionCallError(call.functionName, call.step, `${why}${fix}`);
    }
    return this.grpcRunner().run(call);
  };

  /**
   * A function compositor runs is called only once a runtime of it is healthy; until then the call fails with the
   * Function's Healthy condition, so the XR's Synced condition names the Function and why it cannot run.
   */
  private checkServed(fn: FunctionObject, step: string | undefined): void {
    const name = fn.metadata.name;
    const serving = this.revisions().some(
      (r) =>
        r.metadata.labels?.[PACKAGE_LABEL] === name &&
        r.spec?.desiredState === 'Active' &&
        r.status?.conditions?.some((c) => c.type === 'RuntimeHealthy' && c.status === 'True') === true,
    );
    const healthy = (fn as PackagedFunction).status?.conditions?.find((c) => c.type === 'Healthy');
    // The Function mirrors its current revision: its Healthy True may reach this cache before the revision's does.
    if (serving || healthy?.status === 'True') return;
    const detail =
      healthy === undefined
        ? 'compositor has not installed it yet'
        : `Healthy is ${healthy.status} (${healthy.reason ?? 'no reason'})${healthy.message ? `: ${healthy.message}` : ''}`;
    throw new FunctionCallError(name, step, `Function "${name}" has no healthy runtime: ${detail}`);
  }

  /** Channels open on the first remote call, so an engine that runs only built-ins never dials anything. */
  private grpcRunner(): GrpcFunctionRunner {
    const { config, dialOverrides } = this.options;
    const lookup = {
      getFunction: (name: string): Promise<FunctionObject | undefined> => this.getFunction(name),
      listRevisions: (): Promise<readonly FunctionRevisionObject[]> => Promise.resolve(this.revisions()),
    };
    const namespace = config.packageRuntime === 'Deployment' ? config.leaderElectionNamespace : FUNCTION_NAMESPACE;
    this.grpc ??= new GrpcFunctionRunner({
      resolveEndpoint: lookupEndpointResolver(lookup, namespace),
      credentials: (name) => this.credentialsOf(name),
      timeoutMs: config.functionTimeoutMs,
      dialOverrides,
    });
    return this.grpc;
  }

  /**
   * The credentials runRemote checked: compositor's own for the functions it runs (the current ones: the runner
   * reopens a channel when they change), --function-tls-dir's otherwise.
   */
  private credentialsOf(name: string): ChannelCredentials {
    const fn = this.functionLease?.informer.store.get(name) as FunctionObject | undefined;
    const external = fn === undefined || runsExternally(fn, this.options.config.packageRuntime);
    const creds = external ? this.credentials : this.packageCredentialsNow();
    if (creds === undefined || creds instanceof Error) throw creds ?? new Error('not started');
    return creds;
  }
}

/** A Function as the package controller writes its status. */
interface PackagedFunction extends FunctionObject {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}
