"""Struct helpers: in this stand-in a Struct is already a dict, so both directions copy."""

import copy


def struct_to_dict(s):
    return copy.deepcopy(dict(s))


def dict_to_struct(d):
    return copy.deepcopy(dict(d))
