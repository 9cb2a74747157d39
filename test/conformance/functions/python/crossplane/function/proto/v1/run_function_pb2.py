"""A JSON-backed stand-in for the generated run_function_pb2 module.

Every message is a view over a dict in protojson form (camelCase keys), so writes through attributes land in the
dict that is serialised afterwards. Struct fields (resource, input, context, ...) are the plain dicts themselves,
which is what scripts expect when they call .get() or .update() on them.
"""

import copy
import json

SEVERITY_UNSPECIFIED = 0
SEVERITY_FATAL = 1
SEVERITY_WARNING = 2
SEVERITY_NORMAL = 3
READY_UNSPECIFIED = 0
READY_TRUE = 1
READY_FALSE = 2
TARGET_UNSPECIFIED = 0
TARGET_COMPOSITE = 1
TARGET_COMPOSITE_AND_CLAIM = 2
STATUS_CONDITION_UNSPECIFIED = 0
STATUS_CONDITION_UNKNOWN = 1
STATUS_CONDITION_TRUE = 2
STATUS_CONDITION_FALSE = 3

# protojson writes enums by name; scripts compare them with the integer constants above.
_ENUM_VALUES = {
    name: value
    for name, value in dict(globals()).items()
    if name.startswith(("SEVERITY_", "READY_", "TARGET_", "STATUS_CONDITION_"))
}
_ENUM_FIELDS = {"ready", "severity", "target", "status"}
# google.protobuf.Struct fields and maps of scalars: exposed as the dict itself.
_DICTS = {"resource", "input", "context", "output", "openapi_v3", "connection_details", "labels", "data"}
_MESSAGE_MAPS = {"resources", "required_resources", "extra_resources", "credentials", "required_schemas", "schemas"}
_REPEATED = {"results", "conditions", "items"}
_MESSAGES = {"meta", "observed", "desired", "composite", "requirements", "ttl", "match_labels", "credential_data"}
_NUMBERS = {"seconds", "nanos"}


def _camel(name):
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _unwrap(value):
    return value._data if isinstance(value, Message) else value


def _view(data, cls=None):
    """Wraps a protojson dict without copying it, so writes through the view change the dict."""
    msg = (cls or Message)()
    object.__setattr__(msg, "_data", data)
    return msg


class Message:
    """A protobuf message over a protojson dict. Unset sub-messages are created on access, as in protobuf."""

    def __init__(self, **fields):
        object.__setattr__(self, "_data", {})
        for name, value in fields.items():
            setattr(self, name, value)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        key, data = _camel(name), self._data
        if name in _DICTS:
            return data.setdefault(key, {})
        if name in _MESSAGE_MAPS:
            return _MessageMap(data.setdefault(key, {}))
        if name in _REPEATED:
            return _Repeated(data.setdefault(key, []))
        if name in _MESSAGES:
            return _view(data.setdefault(key, {}))
        value = data.get(key, 0 if name in _NUMBERS or name in _ENUM_FIELDS else "")
        return _ENUM_VALUES.get(value, value) if name in _ENUM_FIELDS else value

    def __setattr__(self, name, value):
        self._data[_camel(name)] = copy.deepcopy(_unwrap(value))

    def __eq__(self, other):
        return isinstance(other, Message) and self._data == other._data

    def __repr__(self):
        return f"{type(self).__name__}({json.dumps(self._data, default=str)})"

    def HasField(self, name):  # noqa: N802 - protobuf's name
        return _camel(name) in self._data

    def CopyFrom(self, other):  # noqa: N802 - protobuf's name
        self._data.clear()
        self._data.update(copy.deepcopy(_unwrap(other)))


class _MessageMap:
    """A map of messages; indexing a missing key creates an empty message, as protobuf does."""

    def __init__(self, data):
        self._data = data

    def __contains__(self, key):
        return key in self._data

    def __getitem__(self, key):
        return _view(self._data.setdefault(key, {}))

    def __setitem__(self, key, value):
        self._data[key] = copy.deepcopy(_unwrap(value))

    def __delitem__(self, key):
        del self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def get(self, key, default=None):
        return _view(self._data[key]) if key in self._data else default

    def keys(self):
        return self._data.keys()

    def items(self):
        return [(key, _view(value)) for key, value in self._data.items()]

    def values(self):
        return [_view(value) for value in self._data.values()]


class _Repeated:
    """A repeated message field; append copies, as protobuf does."""

    def __init__(self, data):
        self._data = data

    def __iter__(self):
        return (_view(item) for item in self._data)

    def __len__(self):
        return len(self._data)

    def __getitem__(self, index):
        return _view(self._data[index])

    def append(self, value):
        self._data.append(copy.deepcopy(_unwrap(value)))

    def extend(self, values):
        for value in values:
            self.append(value)

    def add(self, **fields):
        msg = Message(**fields)
        self._data.append(msg._data)
        return msg


class RunFunctionRequest(Message):
    pass


class RunFunctionResponse(Message):
    pass


class RequestMeta(Message):
    pass


class ResponseMeta(Message):
    pass


class State(Message):
    pass


class Resource(Message):
    pass


class Resources(Message):
    pass


class Result(Message):
    pass


class Condition(Message):
    pass


class Requirements(Message):
    pass


class ResourceSelector(Message):
    pass


class MatchLabels(Message):
    pass


class SchemaSelector(Message):
    pass
