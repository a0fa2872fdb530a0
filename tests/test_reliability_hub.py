"""A hub name behind a proxy that never answers fails in seconds, with the cause named.
Nothing here touches the network: the proxy is a silent server on 127.0.0.1."""

import time
import urllib.error

import huggingface_hub.constants
import pytest
from _servers import silent_server

from sklearn_shufdiv.embedders import load_encoder
from sklearn_shufdiv.embedders._encoder import _loading


@pytest.fixture
def dead_proxy(monkeypatch):
    """HTTPS_PROXY set to a server that accepts and never answers; hub not offline."""
    for var in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "NO_PROXY", "no_proxy",
                "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", False)
    with silent_server() as (port, accepted):
        monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{port}")
        yield port, accepted


def test_the_reachability_check_is_bounded_behind_a_proxy(dead_proxy):
    port, accepted = dead_proxy
    start = time.monotonic()
    assert _loading.hub_reachable(timeout=0.5) is False
    assert time.monotonic() - start < 5
    assert len(accepted) == 1  # the request went to the proxy


def test_a_hub_name_behind_a_dead_proxy_fails_fast(dead_proxy):
    port, _ = dead_proxy
    start = time.monotonic()
    with pytest.raises(OSError, match=rf"cannot be reached \(no answer from huggingface.co "
                                      rf"through the proxy http://127.0.0.1:{port}\)"):
        load_encoder("bert-base-uncased")
    assert time.monotonic() - start < 60  # the check's 3 seconds, then the local cache


def test_an_error_status_through_the_proxy_means_reachable(monkeypatch, dead_proxy):
    class Opener:
        def open(self, request, timeout):
            raise urllib.error.HTTPError(request.full_url, 405, "Method Not Allowed", {},
                                         None)

    monkeypatch.setattr(_loading.urllib.request, "build_opener", Opener)
    assert _loading.hub_reachable(timeout=0.5) is True
