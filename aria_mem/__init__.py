"""aria-mem: the memory layer of a local AI companion.

The CLI (`aria-mem`) and the daemon are built on the services in ``aria_mem.services``; the
one place that wires real adapters from the config is ``aria_mem.wiring.Services``.
"""

from aria_mem.errors import AriaMemError

__version__ = "0.1.0"
__all__ = ["AriaMemError", "__version__"]
