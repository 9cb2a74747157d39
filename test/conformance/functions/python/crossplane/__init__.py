"""Test stand-in for the crossplane namespace package of function-sdk-python."""
