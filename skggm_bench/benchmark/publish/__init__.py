"""The static results site: versioned study pages, learner pages, downloads and
their manifest (``skggm-bench publish``).

Reads stores through :mod:`..results`, numbers through :mod:`..analysis`, words
and figures through :mod:`..present`; never a learner.
"""

from .site import PublishError, publish

__all__ = ["PublishError", "publish"]
