import { Command, CommanderError, Option } from 'commander';
import { addCrossplaneFlags, ignoredFlagsGiven } from './crossplaneOptions.js';
import { envName, flagDefaults, START_FLAGS, type FlagDefinition, type StartConfig } from './flags.js';
import { optionParser, parseValue } from './values.js';
import { formatDuration } from '../apis/index.js';
import { reconcileLimits } from '../base/index.js';
import type { DiagnoseOptions } from './diagnose.js';
import type { RenderOptions } from './render.js';
import type { TraceOptions } from './trace.js';
import { traceCommand } from './traceCommand.js';
import { operationCommand } from './operationCommand.js';
import { providerCommand } from './providerCommand.js';
import type { ProviderNopOptions } from './providerNop.js';
import type { OperationRenderOptions } from './operationRender.js';
import { addPipelineFlags, pipelineFlags, type PipelineFlagValues } from './renderPipelineFlags.js';

/** A command line that cannot run: printed as one line, exit code 2 (the Go flag package's convention). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export interface DevOptions {
  config: StartConfig;
  /** Applied in order: each directory's YAML files in file-name order. */
  examplesDirs: string[];
}

/** What each subcommand does once its flags are valid; resolves to the process exit code. */
export interface CommandHandlers {
  start(config: StartConfig): Promise<number>;
  dev(options: DevOptions): Promise<number>;
  /** Optional so that tests of the other commands need not provide it; without it `render` is a usage error. */
  render?(options: RenderOptions): Promise<number>;
  /** Optional like render; without it `diagnose` is a usage error. */
  diagnose?(options: DiagnoseOptions): Promise<number>;
  /** Optional like render; without it `trace` is a usage error. */
  trace?: (options: TraceOptions) => Promise<number>;
  /** Optional like render; without it `operation render` is a usage error. */
  operationRender?: (options: OperationRenderOptions) => Promise<number>;
  /** Optional like render; without it `provider nop` is a usage error. */
  providerNop?: (options: ProviderNopOptions) => Promise<number>;
}

export interface ProgramOutput {
  writeOut: (text: string) => void;
  writeErr: (text: string) => void;
}

/** Flags that make no sense for `dev`, which creates its own cluster and installs its own CRDs. */
const DEV_EXCLUDED = new Set(['kubeconfig', 'install-crds']);

function toOption(flag: FlagDefinition): Option {
  const placeholder =
    flag.kind === 'boolean' ? '[bool]' : `<${flag.kind === 'positiveDuration' ? 'duration' : flag.kind}>`;
  const option = new Option(`--${flag.name} ${placeholder}`, flag.description).env(envName(flag));
  option.argParser(optionParser(flag.kind));
  if (flag.kind === 'boolean') option.preset('true');
  if (flag.default !== undefined) option.default(parseValue(flag.kind, flag.default), flag.default);
  return option;
}

/** Maps commander's option values (keyed by camel-cased flag name) onto config keys. */
function toConfigValues(options: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const flag of START_FLAGS) {
    const value = options[new Option(`--${flag.name}`).attributeName()];
    if (value !== undefined) values[flag.key] = value;
  }
  return values;
}

/** The default poll intervals obey --min-poll-interval as the per-resource annotations do. */
function checkAtLeastMinimum(flag: string, intervalMs: number, minimumMs: number): void {
  if (intervalMs >= minimumMs) return;
  throw new UsageError(
    `--${flag} ${formatDuration(intervalMs)} is below --min-poll-interval ${formatDuration(minimumMs)}: expected a poll interval at least the minimum`,
  );
}

/** Applies derived defaults and checks that flags agree with each other. */
export function finishConfig(options: Record<string, unknown>): StartConfig {
  const values: Record<string, unknown> = {
    ...flagDefaults(),
    ...toConfigValues(options),
    ignoredFlags: ignoredFlagsGiven(options),
  };
  values.maxConcurrentReconciles ??= reconcileLimits(values.maxReconcileRate as number).workers;
  const config = values as unknown as StartConfig;
  checkAtLeastMinimum('poll-interval', config.pollIntervalMs, config.minPollIntervalMs);
  checkAtLeastMinimum('managed-poll-interval', config.managedPollIntervalMs, config.minPollIntervalMs);
  const { leaderElectionLeaseDurationMs: lease, leaderElectionRenewDeadlineMs: renew } = config;
  if (renew >= lease) {
    throw new UsageError(
      `--leader-election-renew-deadline ${formatDuration(renew)} is not below --leader-election-lease-duration ${formatDuration(lease)}: the leader must stop before a standby may take over`,
    );
  }
  if (config.leaderElectionRetryPeriodMs >= renew) {
    throw new UsageError(
      `--leader-election-retry-period ${formatDuration(config.leaderElectionRetryPeriodMs)} is not below --leader-election-renew-deadline ${formatDuration(renew)}: the leader needs several renewal attempts per deadline`,
    );
  }
  if (config.shardIndex >= config.shardCount) {
    throw new UsageError(
      `--shard-index ${config.shardIndex} is not below --shard-count ${config.shardCount}: expected an index from 0 to ${config.shardCount - 1}`,
    );
  }
  return config;
}

function addFlags(command: Command, exclude: ReadonlySet<string> = new Set()): Command {
  for (const flag of START_FLAGS) {
    if (!exclude.has(flag.name)) command.addOption(toOption(flag));
  }
  return addCrossplaneFlags(command);
}

interface RenderFlags extends PipelineFlagValues {
  observedResources?: string;
  requiredResources?: string;
  extraResources?: string;
  includeFunctionResults?: boolean;
  includeContext?: boolean;
  includeEvents?: boolean;
  includeDeleted?: boolean;
  includeOrder?: boolean;
  includeFullXr?: boolean;
  xrd?: string;
  timeout: number;
}

function renderCommand(handlers: CommandHandlers, onExitCode: (code: number) => void): Command {
  const render = new Command('render')
    .description('Run a Composition pipeline offline and print the desired resources as YAML, like crossplane render.')
    .argument('<xr>', 'YAML file holding the composite resource')
    .argument('<composition>', 'YAML file holding the Composition')
    .argument('<functions>', 'YAML file or directory holding the Functions the pipeline uses')
    .option('-o, --observed-resources <path>', 'YAML file or directory of observed composed resources')
    .option('-e, --required-resources <path>', 'YAML file or directory of resources functions may require')
    .option('--extra-resources <path>', 'YAML file or directory of more required resources (deprecated: use -e)');
  return addPipelineFlags(render, true)
    .option('-r, --include-function-results', 'Also print the results functions returned')
    .option('-c, --include-context', 'Also print the final pipeline context')
    .option('--include-events', 'Also print the events a reconcile would record (compositor only)')
    .option('--include-deleted', 'Also print the observed resources the engine would delete (compositor only)')
    .option(
      '--include-order',
      'Run with composed resource ordering and print the declared dependencies and the waves (compositor only)',
    )
    .option('-x, --include-full-xr', 'Print the rendered XR merged into the input XR')
    .option(
      '--xrd <path>',
      "YAML file holding the XR's CompositeResourceDefinition (legacy XRs keep machinery at spec.*)",
    )
    .addOption(
      new Option('--timeout <duration>', 'Deadline of each function call')
        .argParser(optionParser('positiveDuration'))
        .default(60_000, '1m'),
    )
    .action(async (xr: string, composition: string, functions: string, flags: RenderFlags) => {
      if (handlers.render === undefined) throw new UsageError('render is not available in this build');
      const options: RenderOptions = {
        xr,
        composition,
        functions,
        includeFunctionResults: flags.includeFunctionResults === true,
        includeContext: flags.includeContext === true,
        timeoutMs: flags.timeout,
        ...pipelineFlags(flags),
      };
      if (flags.observedResources !== undefined) options.observedResources = flags.observedResources;
      if (flags.requiredResources !== undefined) options.requiredResources = flags.requiredResources;
      if (flags.extraResources !== undefined) options.extraResources = flags.extraResources;
      if (flags.includeEvents === true) options.includeEvents = true;
      if (flags.includeDeleted === true) options.includeDeleted = true;
      if (flags.includeOrder === true) options.includeOrder = true;
      if (flags.includeFullXr === true) options.includeFullXr = true;
      if (flags.xrd !== undefined) options.xrd = flags.xrd;
      onExitCode(await handlers.render(options));
    });
}

interface DiagnoseFlags {
  stuck?: boolean;
  limit: number;
  namespace?: string;
  output: 'text' | 'json';
  kubeconfig?: string;
  leaderElectionNamespace: string;
  circuitBreakerCooldown: number;
}

function diagnoseCommand(handlers: CommandHandlers, onExitCode: (code: number) => void): Command {
  return new Command('diagnose')
    .description(
      'Explain why a composite resource is or is not reconciling; the first line names the cause. Without arguments: the stuck XRs of every kind and the leader.',
    )
    .argument('[resource]', 'resource type as kubectl names it: plural, singular, kind, or plural.group')
    .argument('[name]', 'name of the resource')
    .option('--stuck', 'instead: list the XRs of every kind that have been not Ready or not Synced the longest')
    .addOption(
      new Option('--limit <count>', 'with --stuck or without arguments: how many stuck XRs to list')
        .argParser(optionParser('positiveInteger'))
        .default(10),
    )
    .option('-n, --namespace <namespace>', 'namespace of a namespaced resource (default: default)')
    .addOption(
      new Option('-o, --output <format>', 'text, or json for scripts').choices(['text', 'json']).default('text'),
    )
    .option('--kubeconfig <path>', 'kubeconfig file (default: $KUBECONFIG, ~/.kube/config, in-cluster)')
    .option('--leader-election-namespace <namespace>', "namespace of compositor's leader lease", 'crossplane-system')
    .addOption(
      new Option(
        '--circuit-breaker-cooldown <duration>',
        "compositor's --circuit-breaker-cooldown, to say when a circuit closes",
      )
        .argParser(optionParser('positiveDuration'))
        .default(300_000, '5m'),
    )
    .action(async (resource: string | undefined, name: string | undefined, flags: DiagnoseFlags) => {
      if (handlers.diagnose === undefined) throw new UsageError('diagnose is not available in this build');
      if (flags.stuck !== true && resource !== undefined && name === undefined) {
        throw new UsageError('diagnose needs <resource> <name>, --stuck, or no arguments for an overview');
      }
      const options: DiagnoseOptions = {
        resource: resource ?? '',
        name: name ?? '',
        stuck: flags.stuck === true,
        limit: flags.limit,
        output: flags.output,
        leaderElectionNamespace: flags.leaderElectionNamespace,
        circuitBreakerCooldownMs: flags.circuitBreakerCooldown,
      };
      if (flags.namespace !== undefined) options.namespace = flags.namespace;
      if (flags.kubeconfig !== undefined) options.kubeconfig = flags.kubeconfig;
      onExitCode(await handlers.diagnose(options));
    });
}

/** Builds the `compositor` command tree; nothing runs until parseAsync. */
export function buildProgram(
  handlers: CommandHandlers,
  output: ProgramOutput,
  onExitCode: (code: number) => void = () => undefined,
): Command {
  const program = new Command('compositor')
    .description('A Crossplane-compatible composition engine with realtime compositions.')
    .exitOverride()
    .configureOutput({ writeOut: output.writeOut, writeErr: output.writeErr, outputError: () => undefined })
    .showSuggestionAfterError(true);

  const start = addFlags(new Command('start'))
    .description('Run the controllers against the cluster of the current kubeconfig.')
    .action(async (options: Record<string, unknown>) => {
      onExitCode(await handlers.start(finishConfig(options)));
    });

  const dev = addFlags(new Command('dev'), DEV_EXCLUDED)
    .description(
      'Start a local control plane, install the CRDs, apply examples/ (and examples/legacy/) and run compositor against it.',
    )
    .option('--examples <dir...>', 'Directories of manifests applied once the control plane is up.', [
      'examples',
      'examples/legacy',
    ])
    .action(async (options: Record<string, unknown> & { examples: string[] }) => {
      const { examples, ...flags } = options;
      onExitCode(await handlers.dev({ config: finishConfig(flags), examplesDirs: examples }));
    });

  const configure = (command: Command): Command =>
    command
      .exitOverride()
      .configureOutput({ writeOut: output.writeOut, writeErr: output.writeErr, outputError: () => undefined });
  for (const command of [
    start,
    dev,
    renderCommand(handlers, onExitCode),
    operationCommand(handlers.operationRender, onExitCode, configure),
    diagnoseCommand(handlers, onExitCode),
    traceCommand(handlers.trace, onExitCode),
    providerCommand(handlers.providerNop, onExitCode, configure),
  ]) {
    program.addCommand(configure(command));
  }
  return program;
}

/** Exit codes that commander reports for help and version, which are not failures. */
const BENIGN = new Set([
  'commander.helpDisplayed',
  'commander.help',
  'commander.version',
  'commander.executeSubCommandAsync',
]);

/**
 * Parses argv (without node and the script) and runs the chosen command.
 * Resolves to the exit code: 2 with one line on stderr for any usage error.
 */
export async function runProgram(
  argv: readonly string[],
  handlers: CommandHandlers,
  output: ProgramOutput,
): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(handlers, output, (code) => (exitCode = code));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (BENIGN.has(err.code)) return 0;
      const hint = err.code === 'commander.unknownOption' ? ' (see compositor <command> --help)' : '';
      output.writeErr(`compositor: ${err.message.replace(/^error: /, '')}${hint}\n`);
      return 2;
    }
    if (err instanceof UsageError) {
      output.writeErr(`compositor: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
}
