// Transform, TransformChain and ConvertPair vectors, through the built-in P&T transforms.
import { expect } from 'chai';
import { conversionFunc, resolveTransform, resolveTransforms } from '../../src/functions/builtin/transforms.js';
import { checkError, given, outcome, want } from './check.js';
import type { Vector } from './corpus.js';
import { fromGo, goTypeName, toGo } from './goValues.js';

function checkValue(v: Vector, fn: () => unknown): void {
  const out = outcome(fn);
  if (checkError(v, out)) return;
  const w = want(v);
  if ('output' in w) expect(fromGo(out.value), v.id).to.deep.equal(w.output);
  if (w.outputGoType !== undefined) {
    expect(goTypeName(out.value).replace('<nil>', 'nil'), `${v.id} Go type`).to.equal(w.outputGoType);
  }
  if (w.outputBase64 !== undefined) {
    expect(Buffer.from(out.value as string, 'latin1').toString('base64'), v.id).to.equal(w.outputBase64);
  }
}

export function transform(v: Vector): void {
  const g = given(v) as { transform: never; input: unknown; inputGoType?: string };
  checkValue(v, () => resolveTransform(g.transform, toGo(g.input, g.inputGoType)));
}

export function transformChain(v: Vector): void {
  const g = given(v) as { transforms: never[]; input: unknown; inputGoType?: string };
  checkValue(v, () => resolveTransforms(g.transforms, toGo(g.input, g.inputGoType)));
}

export function convertPair(v: Vector): void {
  const g = given(v) as { convert: { toType: string; format?: string }; fromType: string };
  const w = want(v) as { supported: boolean; error?: string };
  const out = outcome(() => conversionFunc(g.fromType, g.convert.toType, g.convert.format));
  expect(out.error === undefined, `${v.id}: supported`).to.equal(w.supported);
  if (w.error !== undefined) expect(out.error?.message, v.id).to.equal(w.error);
}
