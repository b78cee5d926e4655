"""``arraygrad.futures``: PyTorch's ``torch.futures``: a ``Future`` holding the result (or
error) of work that completes later, with callbacks (``then``, ``add_done_callback``), and
``collect_all``/``wait_all`` over several.

Pure Python (PyTorch's is C++): ``wait`` blocks on a condition variable until ``set_result``
or ``set_exception`` is called from any thread. ``torch.jit.fork`` returns one already complete
(arraygrad runs the forked call at once).
"""

from __future__ import annotations

import threading
import traceback
from typing import Any, Callable, Generic, TypeVar

__all__ = ["Future", "collect_all", "wait_all"]

T = TypeVar("T")
S = TypeVar("S")


class Future(Generic[T]):
    """The result of asynchronous work, as ``torch.futures.Future``.

    ``devices`` is accepted for PyTorch's signature (CUDA stream synchronisation, which
    arraygrad's futures never need: their values are ready when set).
    """

    def __init__(self, *, devices: list[Any] | None = None) -> None:
        self._cond = threading.Condition()
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None
        self._callbacks: list[Callable[[Future[T]], None]] = []

    def done(self) -> bool:
        """Whether the future holds a result or an error."""
        return self._done

    def wait(self) -> T:
        """Block until complete; the result, or the error raised."""
        with self._cond:
            self._cond.wait_for(lambda: self._done)
        return self.value()

    def value(self) -> T:
        """The result of a completed future (its error is raised); RuntimeError before."""
        if not self._done:
            raise RuntimeError("value() was called on a Future that has not completed yet; "
                               "call wait() first")
        if self._error is not None:
            raise self._error
        return self._value

    def then(self, callback: Callable[[Future[T]], S]) -> Future[S]:
        """A new future completed with ``callback(self)`` once this one completes (with a
        RuntimeError naming the callback's error if it raises)."""
        result: Future[S] = Future()

        def run(fut: Future[T]) -> None:
            try:
                value = callback(fut)
            except Exception as exc:  # noqa: BLE001 - reported through the new future
                trace = "".join(traceback.format_tb(exc.__traceback__))
                result.set_exception(RuntimeError(
                    "Got the following error when running the callback: "
                    f"{type(exc).__name__}: {exc}\n\nAt:\n{trace}"))
                return
            result.set_result(value)

        self.add_done_callback(run)
        return result

    def add_done_callback(self, callback: Callable[[Future[T]], None]) -> None:
        """Call ``callback(self)`` when complete (at once if it is already)."""
        with self._cond:
            if not self._done:
                self._callbacks.append(callback)
                return
        callback(self)

    def set_result(self, result: T) -> None:
        """Complete the future with ``result``, waking waiters and running callbacks."""
        self._complete(result, None)

    def set_exception(self, result: BaseException) -> None:
        """Complete the future with an error, which ``wait``/``value`` raise."""
        if not isinstance(result, BaseException):
            raise AssertionError(f"{result} is of type {type(result)}, not an Exception.")
        self._complete(None, result)

    def _complete(self, value: Any, error: BaseException | None) -> None:
        with self._cond:
            if self._done:
                raise RuntimeError("Attempting to mark a completed Future as complete again. "
                                   "Note that a Future can only be marked completed once.")
            self._value, self._error, self._done = value, error, True
            callbacks, self._callbacks = self._callbacks, []
            self._cond.notify_all()
        for callback in callbacks:
            callback(self)


def collect_all(futures: list[Future[Any]]) -> Future[list[Future[Any]]]:
    """A future completed with the list of ``futures`` once all of them are complete."""
    result: Future[list[Future[Any]]] = Future()
    remaining = [len(futures)]
    lock = threading.Lock()
    if not futures:
        result.set_result([])
        return result

    def one_done(_: Future[Any]) -> None:
        with lock:
            remaining[0] -= 1
            last = remaining[0] == 0
        if last:
            result.set_result(list(futures))

    for fut in futures:
        fut.add_done_callback(one_done)
    return result


def wait_all(futures: list[Future[Any]]) -> list[Any]:
    """Wait for every future; their results in order (the first error is raised)."""
    return [fut.wait() for fut in collect_all(futures).wait()]
