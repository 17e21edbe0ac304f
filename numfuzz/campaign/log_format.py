"""The line format of a campaign's numfuzz.log, written by the loop and read back by the report's graphs/min.

numfuzz names the format rather than take loguru's default: loguru 0.8 added the UTC offset to its
default time, and a log that changes with the library's version cannot be read back by a pattern.
"""

from __future__ import annotations

import re

LOG_FORMAT = "{time:YYYY-MM-DD HH:mm:ss.SSS} | {level: <8} | {name}:{function}:{line} - {message}"
# The offset is optional: logs written before numfuzz named its format, under loguru 0.8's default, carry one.
LOG_LINE = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+)(?: [+-]\d\d:?\d\d)? \| \w+\s*\| [^-]*- (.*)$")
