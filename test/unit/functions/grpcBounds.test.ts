// The gRPC runner against an in-process server on loopback that answers with raw bytes: responses past 4 MiB,
// Structs nested past what the engine decodes, and deep but acceptable ones. Each bad answer fails the call with a
// FunctionCallError; none reaches grpc-js's event handling as an uncaught throw.
import { Server, ServerCredentials, type ServiceDefinition, type sendUnaryData } from '@grpc/grpc-js';
import { expect } from 'chai';
import {
  FunctionCallError,
  GrpcFunctionRunner,
  insecureCredentials,
  MAX_RESPONSE_BYTES,
  responseToWire,
  RUN_FUNCTION_V1,
  runFunctionMethod,
  staticEndpointResolver,
  type JsonObject,
} from '../../../src/functions/index.js';

/** A protobuf length-delimited field. */
function field(number: number, bytes: Buffer): Buffer {
  let length = bytes.length;
  const varint: number[] = [];
  do {
    varint.push((length & 0x7f) | (length > 0x7f ? 0x80 : 0));
    length >>>= 7;
  } while (length > 0);
  return Buffer.concat([Buffer.from([(number << 3) | 2, ...varint]), bytes]);
}

/**
 * A RunFunctionResponse whose context is a Struct `levels` deep, encoded by hand: protobufjs's own encoder refuses
 * to write what its decoder would refuse to read.
 */
function deepContext(levels: number): Buffer {
  let struct: Buffer = Buffer.alloc(0);
  for (let i = 0; i < levels; i++) {
    const value = field(5, struct); // Value.struct_value
    const entry = Buffer.concat([field(1, Buffer.from('a')), field(2, value)]); // FieldsEntry key, value
    struct = field(1, entry); // Struct.fields
  }
  return field(4, struct); // RunFunctionResponse.context
}

function nested(levels: number): JsonObject {
  let value: JsonObject = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

describe('functions/GrpcFunctionRunner bounds', function () {
  this.timeout(20_000);
  let server: Server;
  let runner: GrpcFunctionRunner;
  let answer: Buffer = Buffer.alloc(0);

  before(async () => {
    const method = runFunctionMethod();
    // Same method, but the answer goes out as the raw bytes set by each test.
    const service: ServiceDefinition = {
      RunFunction: {
        path: RUN_FUNCTION_V1,
        requestStream: false,
        responseStream: false,
        requestSerialize: method.serializeRequest,
        requestDeserialize: method.deserializeRequest,
        responseSerialize: (bytes: Buffer) => bytes,
        responseDeserialize: (bytes: Buffer) => bytes,
      },
    };
    server = new Server();
    server.addService(service, {
      RunFunction: (_call: unknown, callback: sendUnaryData<Buffer>) => {
        callback(null, answer);
      },
    });
    const port = await new Promise<number>((resolve, reject) => {
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, bound) => {
        if (err) reject(err);
        else resolve(bound);
      });
    });
    runner = new GrpcFunctionRunner({
      resolveEndpoint: staticEndpointResolver({ fn: `127.0.0.1:${port}` }),
      credentials: insecureCredentials(),
      attempts: 1,
      timeoutMs: 10_000,
    });
  });

  after(async () => {
    runner.close();
    await new Promise<void>((resolve) => {
      server.tryShutdown(() => {
        resolve();
      });
    });
  });

  async function failure(): Promise<FunctionCallError> {
    const err = await runner.run({ functionName: 'fn', step: 's', request: {} }).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!(err instanceof FunctionCallError)) throw new Error(`expected a FunctionCallError, got ${String(err)}`);
    return err;
  }

  it('refuses a response past 4 MiB, as Crossplane does, saying so', async () => {
    answer = runFunctionMethod().serializeResponse(
      responseToWire({ context: { big: 'x'.repeat(MAX_RESPONSE_BYTES) } }),
    );
    const err = await failure();
    expect(err.message).to.match(
      /^cannot run function "fn" for pipeline step "s": cannot call 127\.0\.0\.1:\d+: Received message larger than max \(\d+ vs 4194304\): a response may be at most 4194304 bytes \(4 MiB\), as in Crossplane$/,
    );
  });

  it('refuses a Struct nested 5,000 levels deep without overflowing the stack', async () => {
    answer = deepContext(5_000);
    const started = performance.now();
    const err = await failure();
    expect(err.message).to.match(/Response message parsing error: maximum nesting depth exceeded$/);
    expect(performance.now() - started).to.be.below(5000);
  });

  it("reads a Struct nested 300 levels deep, past protobufjs's default limit of 100 messages", async () => {
    answer = deepContext(300);
    const rsp = await runner.run({ functionName: 'fn', request: {} });
    expect(rsp.context).to.deep.equal(nested(301));
  });
});
