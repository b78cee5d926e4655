"""``Work``: the handle an ``async_op=True`` call returns."""

from __future__ import annotations

from typing import Any, Callable

__all__ = ["Work"]


class Work:
    """A collective or point-to-point call in flight, as PyTorch's ``Work``.

    ``wait()`` blocks until it finished (and its result is in the tensor);
    ``is_completed()`` asks without blocking. MPI progresses non-blocking calls
    only inside MPI calls, so ``is_completed()`` itself drives progress.
    """

    def __init__(self, request: Any = None, finish: Callable[[], None] | None = None) -> None:
        self._request = request  # the backend's request (``wait()``/``test()``), or None: done
        self._finish = finish  # what runs once it completed (AVG's division, a copy back)
        self._done = request is None
        if self._done:
            self._run_finish()

    def _run_finish(self) -> None:
        finish, self._finish = self._finish, None
        if finish is not None:
            finish()

    def wait(self, timeout: Any = None) -> bool:
        """Block until the call completed; its result is then in place. Returns True."""
        if not self._done:
            self._request.wait()
            self._done = True
            self._run_finish()
        return True

    def is_completed(self) -> bool:
        """Whether the call completed (its result written), without blocking."""
        if not self._done and self._request.test():
            self._done = True
            self._run_finish()
        return self._done

    def is_success(self) -> bool:
        """Whether it completed without error (errors raise from ``wait``)."""
        return self.is_completed()

    def get_future(self) -> Any:
        """Not supported: arraygrad has no futures (wait on the ``Work`` instead)."""
        raise RuntimeError("Work.get_future is not supported by arraygrad.distributed; "
                           "call wait() instead")
