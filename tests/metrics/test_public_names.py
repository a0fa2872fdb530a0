"""The public surface of sklearn_shufdiv.metrics and sklearn_shufdiv.inspection: what
``__all__`` declares (and the API reference lists) is all there is, each name with a
runnable example."""

import importlib

import pytest

SUBPACKAGES = ["sklearn_shufdiv.metrics", "sklearn_shufdiv.inspection"]


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_every_public_name_is_declared(name):
    module = importlib.import_module(name)
    public = {attr for attr in vars(module) if not attr.startswith("_")}
    assert public == set(module.__all__)


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_every_declared_name_has_a_runnable_example(name):
    module = importlib.import_module(name)
    for attr in module.__all__:
        doc = getattr(module, attr).__doc__ or ""
        assert "Examples\n" in doc and ">>> " in doc, f"{name}.{attr} has no example"
