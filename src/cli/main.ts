import { runDev } from './dev.js';
import { runDiagnose } from './diagnose.js';
import { runProgram } from './program.js';
import { runRender } from './render.js';
import { runStart, type Output } from './start.js';
import { runTrace } from './trace.js';

const output: Output = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

const code = await runProgram(
  process.argv.slice(2),
  {
    start: (config) => runStart(config, output),
    dev: (options) => runDev(options, output),
    render: (options) => runRender(options, output),
    diagnose: (options) => runDiagnose(options, output),
    trace: (options) => runTrace(options, output),
  },
  { writeOut: output.stdout, writeErr: output.stderr },
);
process.exitCode = code;
