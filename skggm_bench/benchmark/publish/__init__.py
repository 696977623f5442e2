"""The static results site: versioned study pages, learner pages, downloads and
their manifest (``skggm-bench publish``).

Reads stores through :mod:`..results`, numbers through :mod:`..analysis`, words
and figures through :mod:`..present`; never a learner.
"""

from .site import PublishError, check_site, publish, study_name

__all__ = ["PublishError", "check_site", "publish", "study_name"]
