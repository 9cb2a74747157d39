// bench:scale's two functions over gRPC (--functions grpc), served with the official TypeScript SDK: stand-ins for
// function-patch-and-transform (./patchAndTransform.ts) and function-auto-ready (./autoReady.ts). One process serves
// one of them, as each real function runs in its own: bench/harness/standIns.ts starts this file twice,
// `node --import tsx main.ts --function <function-patch-and-transform|function-auto-ready> --insecure
// --address <host:port> --counter-address <host:port>`; the counter address serves the RunFunction calls served so
// far (harness/callCounter.ts). Both answer with the SDK's default TTL of 60 s, as the real functions do.
import { serve, type ComposeFunction } from '@crossplane-org/function-sdk-typescript';
import { countingCalls, takeFlag } from '../../harness/callCounter.js';
import { autoReady } from './autoReady.js';
import { patchAndTransform } from './patchAndTransform.js';

const STAND_INS: Readonly<Record<string, ComposeFunction>> = {
  'function-patch-and-transform': patchAndTransform,
  'function-auto-ready': autoReady,
};

const { value: name, rest: sdkAndCounter } = takeFlag(process.argv.slice(2), 'function');
const standIn = name === undefined ? undefined : STAND_INS[name];
if (name === undefined || standIn === undefined) {
  process.stderr.write(`cannot serve: --function must be one of ${Object.keys(STAND_INS).join(', ')}\n`);
  process.exit(2);
}
const { compose, rest } = countingCalls(standIn, sdkAndCounter);
serve(compose, { name, argv: rest });
