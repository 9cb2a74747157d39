"""The subset of function-sdk-python that function-python scripts use, without protobuf or gRPC.

Messages are views over protojson-shaped dicts (see proto/v1/run_function_pb2.py), so the caller can hand a
request over as JSON and read the response back as JSON.
"""
