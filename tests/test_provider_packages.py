"""Results record the release of the package a provider's client comes from, beside the implementation's version;
the wire fakes serve whichever release of the provider SDK is installed."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from fakes.wire import common
from harness.contract import Capability, Dialect, adapter_provider_package
from harness.reporting.documents import parse_results_document
from harness.results import ScenarioResult
from harness.run.runner import installed_version


@dataclass
class _Adapter:
    name: str = "toy"
    version: str = "1.0"
    capabilities: frozenset[Capability] = frozenset()
    dialects: frozenset[Dialect] = frozenset({"openai-chat"})
    provider_packages: dict[Dialect, str] = field(default_factory=lambda: {"openai-chat": "pytest"})

    def open(self, setup: object) -> object:
        raise NotImplementedError("never opened: only its declarations are read")


def test_the_adapter_names_the_package_of_each_dialect_and_none_for_neutral() -> None:
    adapter = _Adapter()
    assert adapter_provider_package(adapter, "openai-chat") == "pytest"  # type: ignore[arg-type]
    assert adapter_provider_package(adapter, "gemini") == ""  # type: ignore[arg-type]
    assert adapter_provider_package(adapter, "neutral") == ""  # type: ignore[arg-type]


def test_an_adapter_without_provider_packages_or_with_a_broken_mapping_names_none() -> None:
    adapter = _Adapter()
    del adapter.provider_packages
    assert adapter_provider_package(adapter, "openai-chat") == ""  # type: ignore[arg-type]
    broken = _Adapter(provider_packages=["agent-framework-openai"])  # type: ignore[arg-type]
    assert adapter_provider_package(broken, "openai-chat") == ""  # type: ignore[arg-type]


def test_the_installed_release_is_read_and_a_missing_package_has_none() -> None:
    assert installed_version("pytest")
    assert installed_version("no-such-distribution-installed-here") == ""
    assert installed_version("") == ""


def _result(provider: str, package: str = "", version: str = "") -> ScenarioResult:
    return ScenarioResult("s", "t", ("row",), "normal", "agent_framework", "1.20.0", "streaming", "pass",
                          provider=provider, provider_package=package, provider_version=version)


def test_the_provider_release_survives_a_results_file_and_neutral_results_read_as_before() -> None:
    wire = _result("openai-chat", "agent-framework-openai", "1.15.0")
    neutral = _result("neutral")
    assert "provider_package" not in neutral.to_json()
    document = parse_results_document({"results": [wire.to_json(), neutral.to_json()]})
    assert [(r.provider_package, r.provider_version) for r in document.results] == [
        ("agent-framework-openai", "1.15.0"), ("", "")]


@pytest.fixture
def fresh_library_lookup() -> Iterator[None]:
    """The lookup is cached per process: each of these tests reads its own installed version, and leaves none."""
    common.openai_http_library.cache_clear()
    yield
    common.openai_http_library.cache_clear()


@pytest.mark.usefixtures("fresh_library_lookup")
@pytest.mark.parametrize(("installed", "library"), [("3.57.0", "httpx2"), ("2.54.0", "httpx"), ("1.99.9", "httpx")])
def test_the_openai_wire_serves_the_sdk_through_the_http_library_it_is_built_on(
        monkeypatch: pytest.MonkeyPatch, installed: str, library: str) -> None:
    # Older agent-framework-openai releases allow openai 2.x, which is built on httpx; 3.0 moved to httpx2.
    monkeypatch.setattr(common.importlib.metadata, "version",
                        lambda name: installed if name == "openai" else "0")
    assert common.openai_http_library() == library


@pytest.mark.usefixtures("fresh_library_lookup")
def test_without_the_openai_sdk_its_wire_is_not_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(common.importlib.metadata, "version", missing)
    with pytest.raises(ImportError, match="openai SDK is not installed"):
        common.openai_http_library()
