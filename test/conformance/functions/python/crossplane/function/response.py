"""Utilities for RunFunctionResponses, as in function-sdk-python."""

import crossplane.function.proto.v1.run_function_pb2 as fnv1


def _result(rsp, severity, message):
    rsp.results.append(fnv1.Result(severity=severity, message=message))


def normal(rsp, message):
    _result(rsp, fnv1.SEVERITY_NORMAL, message)


def warning(rsp, message):
    _result(rsp, fnv1.SEVERITY_WARNING, message)


def fatal(rsp, message):
    _result(rsp, fnv1.SEVERITY_FATAL, message)


def set_output(rsp, output):
    rsp.output.clear()
    rsp.output.update(output)


def require_resources(rsp, name, api_version, kind, *, match_name=None, match_labels=None, namespace=None):
    """Asks for resources in req.required_resources[name] on the next call; exactly one matcher is allowed."""
    if (match_name is None) == (match_labels is None):
        raise ValueError("Exactly one of match_name or match_labels must be provided")
    selector = fnv1.ResourceSelector(api_version=api_version, kind=kind)
    if match_name is not None:
        selector.match_name = match_name
    if match_labels is not None:
        selector.match_labels.labels.update(match_labels)
    if namespace is not None:
        selector.namespace = namespace
    rsp.requirements.resources[name].CopyFrom(selector)


def require_schema(rsp, name, api_version, kind):
    """Asks for the OpenAPI v3 schema of a kind in req.required_schemas[name] on the next call."""
    rsp.requirements.schemas[name].CopyFrom(fnv1.SchemaSelector(api_version=api_version, kind=kind))
