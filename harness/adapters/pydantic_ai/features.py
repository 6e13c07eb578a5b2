"""What the installed pydantic-ai release is and supports, detected from its API rather than its version string."""

from __future__ import annotations

import importlib.metadata
import inspect
from dataclasses import dataclass

from pydantic_ai import CallDeferred


@dataclass(frozen=True)
class Features:
    version: str  # of the pydantic-ai-slim distribution (the `pydantic-ai` meta-package only pins it)
    question_kind: bool  # CallDeferred takes kind='question'


FEATURES = Features(version=importlib.metadata.version("pydantic-ai-slim"),
                    question_kind="kind" in inspect.signature(CallDeferred.__init__).parameters)
