// The `operation render` subcommand's flags and arguments (crank's `alpha render op`, later `operation render`:
// crossplane/crossplane cmd/crank/alpha/render/op/cmd.go); what it does is runOperationRender, passed in as the
// handler.
import { Command, Option } from 'commander';
import type { OperationRenderOptions } from './operationRender.js';
import { addPipelineFlags, pipelineFlags, type PipelineFlagValues } from './renderPipelineFlags.js';
import { optionParser } from './values.js';

interface OperationRenderFlags extends PipelineFlagValues {
  requiredResources?: string;
  watchedResource?: string;
  includeFunctionResults?: boolean;
  includeContext?: boolean;
  includeFullOperation?: boolean;
  timeout: number;
}

/** `operation`, with `render` as its one subcommand; both share the parent's output and exit handling. */
export function operationCommand(
  run: ((options: OperationRenderOptions) => Promise<number>) | undefined,
  onExitCode: (code: number) => void,
  configure: (command: Command) => Command,
): Command {
  const render = new Command('render')
    .description('Run an Operation pipeline offline and print the Operation and the resources it would apply.')
    .argument('<operation>', 'YAML file holding the Operation, CronOperation or WatchOperation')
    .argument('<functions>', 'YAML file or directory holding the Functions the pipeline uses')
    .option('-e, --required-resources <path>', 'YAML file or directory of resources functions may require')
    .option('-w, --watched-resource <path>', "YAML file holding the resource a WatchOperation's Operation is for");
  addPipelineFlags(render, false)
    .option('-r, --include-function-results', 'Also print the results functions returned')
    .option('-c, --include-context', 'Also print the final pipeline context')
    .option('-o, --include-full-operation', "Keep the Operation's spec in the printed Operation")
    .addOption(
      new Option('--timeout <duration>', 'Deadline of each function call')
        .argParser(optionParser('positiveDuration'))
        .default(60_000, '1m'),
    );
  render.action(async (operation: string, functions: string, flags: OperationRenderFlags) => {
    if (run === undefined) return render.error('operation render is not available in this build');
    const options: OperationRenderOptions = {
      operation,
      functions,
      includeFunctionResults: flags.includeFunctionResults === true,
      includeContext: flags.includeContext === true,
      includeFullOperation: flags.includeFullOperation === true,
      timeoutMs: flags.timeout,
      ...pipelineFlags(flags),
    };
    if (flags.requiredResources !== undefined) options.requiredResources = flags.requiredResources;
    if (flags.watchedResource !== undefined) options.watchedResource = flags.watchedResource;
    onExitCode(await run(options));
  });
  const operation = new Command('operation').description('Work with Operations offline.');
  operation.addCommand(configure(render));
  return operation;
}
