"""Helpers the corpus scripts share."""
import os
import time


def find_translate(path):
    """pyptx-translate at `path`, or in the directory `path`; waits up to a
    minute when it is missing (a rebuild may be replacing it). None if it
    never appears."""
    tool = os.path.join(path, "pyptx-translate") if os.path.isdir(path) else path
    for _ in range(30):
        if os.access(tool, os.X_OK):
            return tool
        time.sleep(2)
    return None
