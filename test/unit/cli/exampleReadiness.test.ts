import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../../../src/base/index.js';
import { ExampleReadiness, type ReadExample } from '../../../src/cli/exampleReadiness.js';
import type { KubeObject } from '../../../src/kube/index.js';

// The watch of `compositor dev`'s examples on a manual clock: the reads are a fake that answers by the clock's time.

const MANIFESTS = `
apiVersion: apiextensions.crossplane.io/v2
kind: CompositeResourceDefinition
metadata: {name: apps.example.compositor.crossplane.io}
spec: {group: example.compositor.crossplane.io, names: {kind: App, plural: apps}}
---
apiVersion: example.compositor.crossplane.io/v1
kind: App
metadata: {name: one, namespace: default}
---
apiVersion: example.compositor.crossplane.io/v1
kind: App
metadata: {name: two, namespace: default}
`;

function examplesDir(text = MANIFESTS): string {
  const dir = mkdtempSync(join(tmpdir(), 'compositor-examples-'));
  writeFileSync(join(dir, '10-apps.yaml'), text);
  return dir;
}

const readyAt =
  (clock: ManualClock, times: Record<string, number>): ReadExample =>
  (object) => {
    const at = times[object.metadata.name] ?? Infinity;
    if (clock.now() < at) {
      const conditions = [{ type: 'Ready', status: 'False', reason: 'Creating', message: 'Unready resources: cm' }];
      return Promise.resolve({ ...object, status: { conditions } } as KubeObject);
    }
    return Promise.resolve({ ...object, status: { conditions: [{ type: 'Ready', status: 'True' }] } } as KubeObject);
  };

/** Runs the watch's timers until it reports or `untilMs` passes; lets its reads settle between timers. */
async function runUntil(clock: ManualClock, reports: string[], untilMs: number): Promise<void> {
  for (;;) {
    await new Promise((resolve) => setImmediate(resolve));
    const next = clock.nextTimerAt();
    if (reports.length > 0 || next === undefined || next > untilMs) return;
    clock.advanceTo(next);
  }
}

describe('cli/ExampleReadiness', () => {
  it('reports once, when the last example is Ready, with the time it took', async () => {
    const clock = new ManualClock(10_000);
    const reports: string[] = [];
    const watch = new ExampleReadiness({
      dirs: [examplesDir()],
      read: readyAt(clock, { one: 11_000, two: 13_100 }),
      report: (text) => reports.push(text),
      clock,
    });
    await watch.start(new AbortController().signal);
    await runUntil(clock, reports, 60_000);
    expect(reports).to.deep.equal(['examples: 2 of 2 XRs Ready in 3.5 s\n']);
    await watch.stop();
  });

  it('says at the deadline which are not Ready and why', async () => {
    const clock = new ManualClock(0);
    const reports: string[] = [];
    const watch = new ExampleReadiness({
      dirs: [examplesDir()],
      read: readyAt(clock, { one: 0 }),
      report: (text) => reports.push(text),
      timeoutMs: 5_000,
      clock,
    });
    await watch.start(new AbortController().signal);
    await runUntil(clock, reports, 60_000);
    expect(reports).to.deep.equal([
      'examples: 1 of 2 XRs Ready after 5.0 s; not Ready:\n  App default/two: Ready False (Creating): Unready resources: cm\n',
    ]);
    await watch.stop();
  });

  it('says why an example that does not exist was not applied', async () => {
    const clock = new ManualClock(0);
    const reports: string[] = [];
    const ready = readyAt(clock, { one: 0 });
    const watch = new ExampleReadiness({
      dirs: [examplesDir()],
      read: (object, signal) => (object.metadata.name === 'two' ? Promise.resolve(undefined) : ready(object, signal)),
      applyProblem: (object) => (object.metadata.name === 'two' ? 'spec: Required value' : undefined),
      report: (text) => reports.push(text),
      timeoutMs: 1_000,
      clock,
    });
    await watch.start(new AbortController().signal);
    await runUntil(clock, reports, 60_000);
    expect(reports).to.deep.equal([
      'examples: 1 of 2 XRs Ready after 1.0 s; not Ready:\n  App default/two: not created yet: spec: Required value\n',
    ]);
    await watch.stop();
  });

  it('stops without a report, and watches nothing when the manifests hold no XR', async () => {
    const clock = new ManualClock(0);
    const reports: string[] = [];
    const watch = new ExampleReadiness({
      dirs: [examplesDir()],
      read: readyAt(clock, {}),
      report: (text) => reports.push(text),
      clock,
    });
    await watch.start(new AbortController().signal);
    await runUntil(clock, reports, 2_000);
    await watch.stop();
    expect(clock.nextTimerAt(), 'no timer left after stop').to.equal(undefined);
    const none = new ExampleReadiness({
      dirs: [examplesDir('apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default}\n')],
      read: () => Promise.reject(new Error('must not read')),
      report: (text) => reports.push(text),
      clock,
    });
    await none.start(new AbortController().signal);
    await none.stop();
    expect(reports).to.deep.equal([]);
  });
});
