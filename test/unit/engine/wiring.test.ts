import { expect } from 'chai';
import pino from 'pino';
import { flagDefaults } from '../../../src/cli/flags.js';
import { CompositeController } from '../../../src/composite/index.js';
import { ClaimController } from '../../../src/claim/index.js';
import {
  CompositionRevisionController,
  DefinitionController,
  ShardFollower,
  type ClaimFactoryInput,
  type CompositeFactoryInput,
} from '../../../src/definition/index.js';
import { FakeRunner } from '../fakes/index.js';
import type { EngineConfig } from '../../../src/engine/index.js';
import { controllers, type Shared } from '../../../src/engine/wiring.js';
import { Discovery, RecordingEventSink, type KubeClient } from '../../../src/kube/index.js';
import { NopProvider } from '../../../src/managed/index.js';
import { OperationsController } from '../../../src/operations/index.js';
import { createMetrics } from '../../../src/metrics/index.js';
import { FunctionPackageController, ProviderPackages, TlsSecrets } from '../../../src/packages/index.js';
import { reconcileLimits } from '../../../src/base/index.js';
import { ReconcileLimiter } from '../../../src/queue/index.js';
import { UsageController } from '../../../src/usage/index.js';
import { FakeInformers } from '../fakes/index.js';

/** The flags' defaults, as `compositor start` with no flag parses them (the pool size follows the rate). */
const DEFAULTS = flagDefaults() as EngineConfig;
DEFAULTS.maxConcurrentReconciles = DEFAULTS.maxReconcileRate;

function shared(flags: Partial<EngineConfig>): Shared {
  const client = {} as KubeClient;
  const config = { ...DEFAULTS, leaderElectionNamespace: 'crossplane-system', ...flags };
  return {
    context: {
      client,
      discovery: new Discovery(client),
      informers: new FakeInformers().registry,
      events: new RecordingEventSink(),
      metrics: createMetrics({ processMetrics: false }),
      logger: pino({ level: 'silent' }),
    },
    settings: {
      reconcileLimiter: new ReconcileLimiter(reconcileLimits(config.maxReconcileRate).reconciles),
      workers: config.maxConcurrentReconciles,
    },
    config,
  };
}

function wire(flags: Partial<EngineConfig>): { parts: ReturnType<typeof controllers>; shared: Shared } {
  const built = shared(flags);
  const secrets = new TlsSecrets({ client: built.context.client, namespace: 'crossplane-system' });
  const runner = new FakeRunner(() => ({}));
  return { parts: controllers(built, { composite: runner, operations: runner }, secrets), shared: built };
}

/** The options a controller was built with: where each one keeps its limiter and pool size. */
function optionsOf(part: unknown): {
  reconcileLimiter?: unknown;
  settings?: { reconcileLimiter?: unknown; workers?: number };
} {
  return (part as { options: never }).options;
}

function limiterOf(part: unknown): unknown {
  const options = optionsOf(part);
  return options.reconcileLimiter ?? options.settings?.reconcileLimiter;
}

const XR_TYPE = { apiVersion: 'example.org/v1', kind: 'XApp', group: 'example.org', namespaced: true, legacy: false };

/** The composite and claim controllers the XRD controller (or the follower) would start for one XRD. */
function xrdControllers(definitions: unknown): unknown[] {
  const options = definitionOptionsOf(definitions);
  const composite = options.newComposite({
    name: 'composite/xapps.example.org',
    xrType: XR_TYPE,
    xrd: () => ({}),
    stale: () => false,
  });
  const claim = options.newClaim?.({
    name: 'claim/apps.example.org',
    claimType: { apiVersion: 'example.org/v1', kind: 'App' },
    xrType: XR_TYPE,
  });
  return claim ? [composite, claim] : [composite];
}

function definitionOptionsOf(definitions: unknown): {
  newComposite: (input: CompositeFactoryInput) => unknown;
  newClaim?: (input: ClaimFactoryInput) => unknown;
} {
  return (definitions as { options: never }).options;
}

describe('engine/controllers: which controllers run with which flags', () => {
  const cases: Record<string, { reason: string; flags: Partial<EngineConfig>; want: Record<string, unknown> }> = {
    defaults: {
      reason: 'shard 0 of 1 runs every cluster-wide controller; packages run as Deployments; usages on',
      flags: {},
      want: {
        packages: FunctionPackageController,
        providers: undefined,
        nop: undefined,
        revisions: CompositionRevisionController,
        usages: UsageController,
        definitions: DefinitionController,
      },
    },
    'external packages': {
      reason: '--package-runtime=External: something else runs the Function packages',
      flags: { packageRuntime: 'External' },
      want: { packages: undefined },
    },
    'usages off': {
      reason: '--enable-usages=false: no Usage controller and no admission policy',
      flags: { enableUsages: false },
      want: { usages: undefined },
    },
    operations: {
      reason: '--enable-operations: the Operation, CronOperation and WatchOperation controllers run on shard 0',
      flags: { enableOperations: true },
      want: { operations: OperationsController },
    },
    'operations on a shard other than 0': {
      reason: 'the ops controllers are cluster-wide work: shard 1 of 2 runs none',
      flags: { enableOperations: true, shardIndex: 1, shardCount: 2 },
      want: { operations: undefined },
    },
    providers: {
      reason: '--enable-providers: the Provider, ProviderRevision, MRD and MRAP controllers run on shard 0',
      flags: { enableProviders: true },
      want: { providers: ProviderPackages },
    },
    'providers with external packages': {
      reason: '--package-runtime=External: something else runs the package manager, Providers too',
      flags: { enableProviders: true, packageRuntime: 'External' },
      want: { providers: undefined },
    },
    'providers on a shard other than 0': {
      reason: 'the package controllers are cluster-wide work: shard 1 of 2 runs none',
      flags: { enableProviders: true, shardIndex: 1, shardCount: 2 },
      want: { providers: undefined },
    },
    'nop provider': {
      reason: '--enable-nop-provider: the built-in provider runs, on every shard',
      flags: { enableNopProvider: true, shardIndex: 1, shardCount: 2 },
      want: { nop: NopProvider },
    },
    'a shard other than 0': {
      reason: 'shard 1 of 2 does no cluster-wide work: it follows the XRDs shard 0 establishes',
      flags: { shardIndex: 1, shardCount: 2 },
      want: { packages: undefined, revisions: undefined, usages: undefined, definitions: ShardFollower },
    },
  };
  for (const [name, { reason, flags, want }] of Object.entries(cases)) {
    it(name, () => {
      const { parts } = wire(flags);
      for (const [part, type] of Object.entries(want)) {
        const built = (parts as unknown as Record<string, unknown>)[part];
        if (type === undefined) expect(built, `${reason}: no ${part}`).to.equal(undefined);
        else expect(built, `${reason}: ${part}`).to.be.instanceOf(type);
      }
    });
  }

  it('hands every controller, and every composite and claim controller an XRD starts, the one reconcile limiter', () => {
    for (const flags of [{ enableNopProvider: true }, { enableNopProvider: true, shardIndex: 1, shardCount: 2 }]) {
      const { parts, shared: built } = wire(flags);
      const nop = parts.nop;
      const all = [
        parts.packages,
        parts.revisions,
        parts.usages,
        parts.definitions,
        nop,
        ...(nop?.controllers ?? []),
        ...xrdControllers(parts.definitions),
      ].filter((part) => part !== undefined);
      expect(all.length, 'controllers built').to.be.greaterThan(3);
      for (const part of all) {
        const name = (part as { constructor: { name: string } }).constructor.name;
        expect(limiterOf(part), `${name} on shard ${String(flags.shardIndex ?? 0)}`).to.equal(
          built.settings.reconcileLimiter,
        );
      }
    }
  });

  it('gives the composite and claim controllers --max-concurrent-reconciles workers', () => {
    const { parts } = wire({ maxConcurrentReconciles: 7 });
    const [composite, claim] = xrdControllers(parts.definitions);
    expect(composite).to.be.instanceOf(CompositeController);
    expect(claim).to.be.instanceOf(ClaimController);
    expect(optionsOf(composite).settings?.workers).to.equal(7);
    expect(optionsOf(claim).settings?.workers).to.equal(7);
  });
});
