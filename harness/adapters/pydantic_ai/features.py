"""What the installed pydantic-ai release is."""

from __future__ import annotations

import importlib.metadata
from dataclasses import dataclass


@dataclass(frozen=True)
class Features:
    version: str  # of the pydantic-ai-slim distribution (the `pydantic-ai` meta-package only pins it)


FEATURES = Features(version=importlib.metadata.version("pydantic-ai-slim"))
