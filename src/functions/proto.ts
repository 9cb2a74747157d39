// Loads proto/run_function.proto with @grpc/proto-loader and exposes the RunFunction method's serialisers. The
// same serialisers serve the v1 and the wire-identical v1beta1 service.
import { join } from 'node:path';
import { loadPackageDefinition, type ServiceDefinition } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { packageRoot } from '../apis/index.js';
import { MAX_NESTING_DEPTH } from '../base/index.js';

export const RUN_FUNCTION_V1 = '/apiextensions.fn.proto.v1.FunctionRunnerService/RunFunction';
export const RUN_FUNCTION_V1BETA1 = '/apiextensions.fn.proto.v1beta1.FunctionRunnerService/RunFunction';

/** Where the .proto lives; resolved from the package root so it works from src/ and from dist/. */
export function protoPath(): string {
  return join(packageRoot(), 'src', 'functions', 'proto', 'run_function.proto');
}

export interface RunFunctionMethod {
  // Plain function properties, not methods: grpc-js calls them detached from this object.
  serializeRequest: (value: object) => Buffer;
  deserializeRequest: (bytes: Buffer) => Record<string, unknown>;
  serializeResponse: (value: object) => Buffer;
  deserializeResponse: (bytes: Buffer) => Record<string, unknown>;
  /** The service definition, for test servers written against this same .proto. */
  service: ServiceDefinition;
}

let loaded: RunFunctionMethod | undefined;

/**
 * Message levels protobufjs encodes and decodes. Each level of a google.protobuf.Struct is three messages (Struct,
 * its map entry, Value), and a resource sits a few messages below the request or response; protobufjs's own default
 * (100, protoc's) would refuse anything nested past about 30 JSON levels, which CRD schemas and Helm values reach.
 * This admits what the engine accepts (MAX_NESTING_DEPTH) and refuses the rest before it reaches the stack's end.
 */
export const PROTOBUF_RECURSION_LIMIT = 3 * MAX_NESTING_DEPTH + 32;

/** The RunFunction serialisers, loaded once per process on first use (never at import). */
export function runFunctionMethod(): RunFunctionMethod {
  if (loaded) return loaded;
  // protobufjs keeps its limit per process; compositor is its only user that reads Structs.
  protobuf.util.recursionLimit = PROTOBUF_RECURSION_LIMIT;
  protobuf.Reader.recursionLimit = PROTOBUF_RECURSION_LIMIT;
  const definition = loadSync(protoPath(), {
    keepCase: false,
    longs: Number,
    enums: String,
    defaults: false,
    oneofs: true,
  });
  const pkg = loadPackageDefinition(definition) as unknown as {
    apiextensions: { fn: { proto: { v1: { FunctionRunnerService: { service: ServiceDefinition } } } } };
  };
  const service = pkg.apiextensions.fn.proto.v1.FunctionRunnerService.service;
  const method = service.RunFunction;
  if (method === undefined) throw new Error(`cannot load ${protoPath()}: no RunFunction method`);
  loaded = {
    serializeRequest: method.requestSerialize as (value: object) => Buffer,
    deserializeRequest: method.requestDeserialize as (bytes: Buffer) => Record<string, unknown>,
    serializeResponse: method.responseSerialize as (value: object) => Buffer,
    deserializeResponse: method.responseDeserialize as (bytes: Buffer) => Record<string, unknown>,
    service,
  };
  return loaded;
}
