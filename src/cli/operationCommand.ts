// The `operation render` subcommand's flags and arguments (crank's `alpha render op`, later `operation render`:
// crossplane/crossplane cmd/crank/alpha/render/op/cmd.go); what it does is runOperationRender, passed in as the
// handler.
import { Command, Option } from 'commander';
import type { OperationRenderOptions } from './operationRender.js';
import { optionParser } from './values.js';

interface OperationRenderFlags {
  requiredResources?: string;
  watchedResource?: string;
  contextFiles: string[];
  contextValues: string[];
  functionCredentials?: string;
  functionAnnotations: string[];
  requiredSchemas?: string;
  includeFunctionResults?: boolean;
  includeContext?: boolean;
  includeFullOperation?: boolean;
  timeout: number;
}

/** Collects a repeatable flag's values, in the order given. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
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
    .option('-w, --watched-resource <path>', "YAML file holding the resource a WatchOperation's Operation is for")
    .option(
      '--context-files <key=path>',
      'Context value for the pipeline to start from, read from a JSON or YAML file (repeatable)',
      collect,
      [],
    )
    .option(
      '--context-values <key=value>',
      'Context value for the pipeline to start from, as JSON (repeatable; wins over --context-files)',
      collect,
      [],
    )
    .option('--required-schemas <dir>', 'Directory of OpenAPI v3 documents (JSON) required schemas are served from')
    .option(
      '--function-credentials <path>',
      'YAML file or directory of the Secrets pipeline steps take credentials from',
    )
    .option(
      '-a, --function-annotations <key=value>',
      'Annotation set on every Function, in place of its own (repeatable)',
      collect,
      [],
    )
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
    };
    if (flags.requiredResources !== undefined) options.requiredResources = flags.requiredResources;
    if (flags.watchedResource !== undefined) options.watchedResource = flags.watchedResource;
    if (flags.contextFiles.length > 0) options.contextFiles = flags.contextFiles;
    if (flags.contextValues.length > 0) options.contextValues = flags.contextValues;
    if (flags.functionCredentials !== undefined) options.functionCredentials = flags.functionCredentials;
    if (flags.functionAnnotations.length > 0) options.functionAnnotations = flags.functionAnnotations;
    if (flags.requiredSchemas !== undefined) options.requiredSchemas = flags.requiredSchemas;
    onExitCode(await run(options));
  });
  const operation = new Command('operation').description('Work with Operations offline.');
  operation.addCommand(configure(render));
  return operation;
}
