import { runDev } from './dev.js';
import { runDiagnose } from './diagnose.js';
import { runProgram } from './program.js';
import { runRender } from './render.js';
import { runOperationRender } from './operationRender.js';
import { runProviderNop } from './providerNop.js';
import { runStart, type Output } from './start.js';
import { runTrace } from './trace.js';

// A reader that stops early (`compositor --help | head -3`) closes the pipe: the output ends there, quietly, as it
// does for any Unix tool, rather than in an uncaught EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
    process.exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
  });
}

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
    operationRender: (options) => runOperationRender(options, output),
    diagnose: (options) => runDiagnose(options, output),
    trace: (options) => runTrace(options, output),
    providerNop: (options) => runProviderNop(options, output),
  },
  { writeOut: output.stdout, writeErr: output.stderr },
);
process.exitCode = code;
