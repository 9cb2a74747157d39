"""Utilities for RunFunctionRequests, as in function-sdk-python."""

from crossplane.function import resource


def get_required_resources(req, name):
    """The resources supplied for requirement name, as dicts; empty when the requirement is not resolved yet."""
    if name not in req.required_resources:
        return []
    return [resource.struct_to_dict(item.resource) for item in req.required_resources[name].items]


def get_required_resource(req, name):
    """The first resource supplied for requirement name, or None."""
    resources = get_required_resources(req, name)
    return resources[0] if resources else None


def get_watched_resource(req):
    return get_required_resource(req, "ops.crossplane.io/watched-resource")


def get_required_schema(req, name):
    """The OpenAPI v3 schema supplied for requirement name, as a dict; None until resolved or for an unknown kind."""
    if name not in req.required_schemas:
        return None
    schema = req.required_schemas[name]
    if not schema.HasField("openapi_v3"):
        return None
    return resource.struct_to_dict(schema.openapi_v3)
