// Runs every vector of the conformance corpus through the built-in modules. The only ids here are the UNSUPPORTED
// list; a file of a known kind is picked up with no code change and an unknown kind fails.
import { expect } from 'chai';
import { handlers } from './handlers.js';
import { loadVectors, type Vector } from './corpus.js';
import { failureReason, report } from './report.js';

/** Vectors compositor deliberately does not support, each with its reason. Keep this list short and honest. */
const UNSUPPORTED: Readonly<Record<string, string>> = {};

const FOLDERS = ['pt-vectors', 'auto-ready-vectors', 'engine-vectors'];

for (const folder of FOLDERS) {
  describe(`conformance: ${folder}`, () => {
    for (const vector of loadVectors(folder)) {
      const reason = UNSUPPORTED[vector.id];
      it(`${vector.id} (${vector.kind})`, async function () {
        if (reason !== undefined) {
          report.record({ id: vector.id, kind: vector.kind, status: 'unsupported', reason });
          this.skip();
        }
        try {
          await run(vector);
          report.record({ id: vector.id, kind: vector.kind, status: 'passed' });
        } catch (err) {
          report.record({ id: vector.id, kind: vector.kind, status: 'failed', reason: failureReason(err) });
          throw err;
        }
      });
    }
  });
}

async function run(vector: Vector): Promise<void> {
  const handler = handlers(vector);
  expect(handler, `unknown vector kind ${vector.kind} in ${vector.file}`).to.not.equal(undefined);
  await handler?.(vector);
}
