// google.protobuf.Struct <-> JSON, both ways and losslessly for every JSON value. Struct numbers are doubles on the
// wire, as in every Crossplane SDK, so integers beyond 2^53 are the protocol's limit, not this file's.
import type { JsonObject, JsonValue } from './types.js';

/** A google.protobuf.Value as @grpc/proto-loader presents it (oneofs on, enums as strings). */
export interface WireValue {
  kind?: string;
  nullValue?: string | number;
  numberValue?: number;
  stringValue?: string;
  boolValue?: boolean;
  structValue?: WireStruct;
  listValue?: { values?: WireValue[] };
}

export interface WireStruct {
  fields?: Record<string, WireValue>;
}

export function toWireValue(value: JsonValue): WireValue {
  if (value === null) return { nullValue: 'NULL_VALUE' };
  switch (typeof value) {
    case 'number':
      return { numberValue: value };
    case 'string':
      return { stringValue: value };
    case 'boolean':
      return { boolValue: value };
    default:
      return Array.isArray(value)
        ? { listValue: { values: value.map(toWireValue) } }
        : { structValue: toStruct(value) };
  }
}

export function toStruct(object: JsonObject): WireStruct {
  const fields: Record<string, WireValue> = {};
  for (const [key, value] of Object.entries(object)) {
    // undefined is not JSON; a JS caller may still leave it in an object, and JSON.stringify would drop it too.
    if ((value as JsonValue | undefined) !== undefined) fields[key] = toWireValue(value);
  }
  return { fields };
}

function kindOf(value: WireValue): string | undefined {
  if (value.kind !== undefined) return value.kind;
  for (const key of ['nullValue', 'numberValue', 'stringValue', 'boolValue', 'structValue', 'listValue'] as const) {
    if (value[key] !== undefined) return key;
  }
  return undefined;
}

export function fromWireValue(value: WireValue): JsonValue {
  switch (kindOf(value)) {
    case 'numberValue':
      return value.numberValue ?? 0;
    case 'stringValue':
      return value.stringValue ?? '';
    case 'boolValue':
      return value.boolValue ?? false;
    case 'structValue':
      return fromStruct(value.structValue ?? {});
    case 'listValue':
      return (value.listValue?.values ?? []).map(fromWireValue);
    default:
      // nullValue, or a Value with no kind set, which protojson also reads as null.
      return null;
  }
}

export function fromStruct(struct: WireStruct): JsonObject {
  const object: JsonObject = {};
  for (const [key, value] of Object.entries(struct.fields ?? {})) object[key] = fromWireValue(value);
  return object;
}
