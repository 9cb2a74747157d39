// The commander options for crank's shared render flags (readPipelineInputs reads what they name), defined once for
// `render` and `operation render`. Their names are crank's; crank's `render xr` alone gives --required-schemas the
// short form -s (crossplane/cli cmd/crossplane/render/xr/cmd.go, op/cmd.go).
import type { Command } from 'commander';
import type { PipelineInputFlags } from './renderPipelineInputs.js';

/** What commander hands the action for these options: repeatable flags default to empty lists. */
export interface PipelineFlagValues {
  contextFiles: string[];
  contextValues: string[];
  functionCredentials?: string;
  functionAnnotations: string[];
  requiredSchemas?: string;
}

/** Collects a repeatable flag's values, in the order given. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Adds the five options to `command`; `schemasShort` adds -s for --required-schemas, as `render xr` has it. */
export function addPipelineFlags(command: Command, schemasShort: boolean): Command {
  return command
    .option(
      '--context-files <key=path>',
      'Context value for the pipeline to start from, read from a JSON or YAML file (repeatable)',
      collect,
      [],
    )
    .option(
      '--context-values <key=value>',
      'Context value for the pipeline to start from, as JSON or YAML (repeatable; wins over --context-files)',
      collect,
      [],
    )
    .option(
      `${schemasShort ? '-s, ' : ''}--required-schemas <dir>`,
      'Directory of OpenAPI v3 documents (JSON) required schemas are served from',
    )
    .option(
      '--function-credentials <path>',
      'YAML file or directory of the Secrets pipeline steps take credentials from',
    )
    .option(
      '-a, --function-annotations <key=value>',
      'Annotation set on every Function, in place of its own (repeatable)',
      collect,
      [],
    );
}

/** The flags given, leaving out the ones that were not (so options compare equal without them). */
export function pipelineFlags(values: PipelineFlagValues): PipelineInputFlags {
  const flags: PipelineInputFlags = {};
  if (values.contextFiles.length > 0) flags.contextFiles = values.contextFiles;
  if (values.contextValues.length > 0) flags.contextValues = values.contextValues;
  if (values.functionCredentials !== undefined) flags.functionCredentials = values.functionCredentials;
  if (values.functionAnnotations.length > 0) flags.functionAnnotations = values.functionAnnotations;
  if (values.requiredSchemas !== undefined) flags.requiredSchemas = values.requiredSchemas;
  return flags;
}
