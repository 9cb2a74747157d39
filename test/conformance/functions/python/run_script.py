"""Runs one function-python script once.

Reads {"script", "request", "response"} as JSON on stdin (request and response in protojson form, the response
already built from the request), calls the script's compose(req, rsp) and writes the response JSON on stdout.
Anything the script prints goes to stderr, so stdout carries only the response. A script that raises gets a
FATAL result carrying the Python error text.
"""

import inspect
import json
import sys
import traceback
import types

from crossplane.function import response
from crossplane.function.proto.v1 import run_function_pb2 as fnv1


def load(source):
    module = types.ModuleType("script")
    exec(compile(source, "<script>", "exec"), module.__dict__)  # noqa: S102 - running the script is the point
    return module


def run(source, req, rsp):
    compose = getattr(load(source), "compose", None)
    if compose is None:
        response.fatal(rsp, "script must define a compose function")
        return
    outcome = compose(req, rsp)
    if inspect.isawaitable(outcome):
        import asyncio  # noqa: PLC0415 - only async scripts pay for importing it

        asyncio.run(outcome)


def main():
    envelope = json.load(sys.stdin)
    req = fnv1._view(envelope["request"], fnv1.RunFunctionRequest)
    rsp = fnv1._view(envelope["response"], fnv1.RunFunctionResponse)
    out, sys.stdout = sys.stdout, sys.stderr
    try:
        run(envelope["script"], req, rsp)
        text = json.dumps(rsp._data)
    except Exception as err:  # noqa: BLE001 - every script failure becomes a result
        error = "".join(traceback.format_exception_only(type(err), err)).strip()
        response.fatal(rsp, f"script failed: {error}")
        text = json.dumps(rsp._data, default=str)
    out.write(text)
    out.flush()


if __name__ == "__main__":
    main()
