"""The requests a fork server runs (:class:`Server`), and serving them in-process.

The requests are generic: ``server(name, args)`` in the child, where ``server`` is
a :class:`Server`; what the names mean (drawing a data set, fitting a learner) is
defined in ``_worker.py``. :class:`InProcess` serves them in the calling process
(``isolate=False``).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from ..results._schema import Status
from ._outcomes import MISSING, Outcome, run_request

__all__ = ["InProcess", "Server"]


class Server:
    """The requests a fork server runs, and the plain data its template keeps.

    A subclass defines one method per request name; ``server(name, args)`` calls
    it in a fresh child. What a request computes that later requests reuse (a
    drawn data set) it passes to :meth:`keep`: the entry goes back to the template
    with the answer, and every later child has it. :meth:`cached` answers, in the
    template and without a child, a request whose answer is in the kept data; it
    must run no code of a learner or a generator.

    What a child sends back was possibly written by the learner it ran: the
    template reads it with :func:`~._plain_data.loads_plain` (plain data, and the
    dataclasses named in ``plain_types``, nothing else), and takes kept entries
    only from the answer of a request named in ``keeping`` that
    :meth:`accepts_kept`.
    """

    #: Names of the requests whose answer may bring kept entries (draws).
    keeping: frozenset[str] = frozenset()
    #: Dataclasses (with plain fields) that answers and kept entries may hold.
    plain_types: tuple[type, ...] = ()

    # The last ``min_kept`` entries are kept whatever their size; older ones while
    # all of them take at most ``max_kept_bytes`` (the template's memory is copied,
    # in page tables, at every fork) and number at most ``max_kept``.
    min_kept = 4
    max_kept_bytes = 64 * 2**20
    max_kept = 1024

    def __init__(self) -> None:
        self.kept: OrderedDict[Hashable, Any] = OrderedDict()
        self._sizes: dict[Hashable, int] = {}
        self._fresh: dict[Hashable, Any] = {}

    def __call__(self, name: str, args: tuple[Any, ...]) -> Any:
        return getattr(self, name)(*args)

    def cached(self, name: str, args: tuple[Any, ...]) -> Any:
        """The answer from the kept data, or :data:`MISSING` (the default)."""
        return MISSING

    def warm_up(self) -> None:
        """Run once in the template, before any child is forked (default: nothing).

        What a first call does once per process (lazy imports, caches of
        signatures and configurations) would otherwise be done again by every
        child. Only the server's own code, on fixed toy data: the template's state
        stays the same whatever the study's learners and generators are.
        """

    def close(self) -> None:
        """Run once in the template as it exits (default: nothing).

        Releases what :meth:`warm_up` set up that would outlive the template
        (it ends with ``os._exit``: no ``atexit`` handler runs), e.g. a
        directory its children share.
        """

    def size(self, value: Any) -> int:
        """Bytes a kept value takes (default: 0, so only ``min_kept`` bounds)."""
        return 0

    def accepts_kept(self, key: Hashable, value: Any) -> bool:
        """Whether a kept entry sent by a child has the expected form (default: no)."""
        return False

    def keep(self, key: Hashable, value: Any) -> None:
        """Keep ``value`` for the following requests (the oldest entries go)."""
        self._fresh[key] = value
        self.merge({key: value})

    def merge(self, entries: dict[Hashable, Any]) -> None:
        """Take kept entries computed elsewhere."""
        for key, value in entries.items():
            self.kept[key] = value
            self.kept.move_to_end(key)
            self._sizes[key] = self.size(value)
        total = sum(self._sizes.values())
        while len(self.kept) > self.min_kept and (
            total > self.max_kept_bytes or len(self.kept) > self.max_kept
        ):
            key, _ = self.kept.popitem(last=False)
            total -= self._sizes.pop(key)

    def take_fresh(self) -> dict[Hashable, Any]:
        """The entries kept since the last call (to send back to the template)."""
        fresh, self._fresh = self._fresh, {}
        return fresh


class InProcess:
    """Requests served in the calling process: no deadline, no crash protection.

    For debugging a learner (a debugger stops inside its ``fit``) and for
    platforms without ``os.fork``. ``KeyboardInterrupt`` is re-raised, since here a
    Ctrl-C of the user cannot be told apart from one raised by a learner.
    """

    def __init__(self, server: Server) -> None:
        self._server = server

    def call(
        self, name: str, args: tuple[Any, ...], timeout: float | None = None
    ) -> Outcome:
        """Run ``server(name, args)`` here; see :meth:`ForkServer.call`."""
        return self.call_each([(name, args)], timeout)[0]

    def call_each(
        self, requests: list[tuple[str, tuple[Any, ...]]], timeout: float | None = None
    ) -> list[Outcome]:
        """Run requests in turn here; see :meth:`ForkServer.call_each`."""
        outcomes = []
        for name, args in requests:
            value = self._server.cached(name, args)
            if value is not MISSING:
                outcomes.append(Outcome(Status.OK, value, "", 0.0))
                continue
            outcome = run_request(self._server, name, args)
            self._server.take_fresh()
            if outcome.message.startswith("KeyboardInterrupt"):
                raise KeyboardInterrupt
            outcomes.append(outcome)
            if outcome.status is not Status.OK:
                break
        return outcomes

    def close(self) -> None:
        """Nothing to release."""
