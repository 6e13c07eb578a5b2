"""Reading a scenario file into text that YAML can take: bounded in size, UTF-8, no control characters.

Each refusal is a `SourceError` located at the offending byte or character, so a stray byte in a large file is
found without a hex editor.
"""

from __future__ import annotations

import re
from pathlib import Path

from harness.scenario.yaml_source import Position, SourceError, invalid_character, position_of

# The largest bundled scenario is a few kilobytes; a megabyte is no hand-written scenario, and reading no more than
# that bounds the memory a wrong path (a log, a disk image) can take.
MAX_FILE_BYTES = 1_048_576

# Everything YAML 1.1 (and so PyYAML) refuses: C0 controls but tab and line breaks, DEL, C1 controls but NEL,
# surrogates, U+FFFE and U+FFFF.
_NOT_YAML = re.compile("[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def read_source(path: Path, max_bytes: int = MAX_FILE_BYTES) -> str:
    """The text of the YAML file at `path` (a scenario unless `max_bytes` says otherwise), with line breaks as text
    mode reads them."""
    try:
        with path.open("rb") as file:
            data = file.read(max_bytes + 1)
    except OSError as error:
        raise SourceError("unreadable", error.strerror or str(error), Position(1, 1),
                          "check the path and its permissions") from None
    if len(data) > max_bytes:
        usual = "a scenario is a few kilobytes: " if max_bytes == MAX_FILE_BYTES else ""
        raise SourceError("too-large", f"the file is larger than {max_bytes} bytes", Position(1, 1),
                          f"{usual}split it, or check that this is the file you meant")
    try:
        text = data.decode("utf-8-sig")  # a leading byte-order mark is allowed and dropped
    except UnicodeDecodeError as error:
        raise _not_utf8(error) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    found = _NOT_YAML.search(text)
    if found:
        raise invalid_character(text, found.start())
    return text


def _not_utf8(error: UnicodeDecodeError) -> SourceError:
    # The decoder stops at the first bad byte, so everything before it decodes.
    before = error.object[: error.start].decode("utf-8", errors="replace")
    byte = error.object[error.start]
    return SourceError("not-utf8", f"byte 0x{byte:02X} is not valid UTF-8 ({error.reason})",
                       position_of(before, len(before)),
                       "save the file as UTF-8 (scenario files are UTF-8 text, not another encoding or binary data)")
