"""The handle of an open store, which every part of Store calls the library through."""
from __future__ import annotations

import threading

from ._errors import InvalidHandleError
from ._ffi import c_void_p, raw

STATUS_CLOSED = raw.TSSTORE_E_INVALID_HANDLE


class StoreHandle:
    """The state every part of Store shares: the library's handle (None once closed)."""

    def __init__(self, handle: int) -> None:
        self._h: int | None = handle
        # The handle as the ctypes object the unchecked calls take (_ffi.fast); read only after
        # _h says the store is open.
        self._hv = c_void_p(handle)
        self._lock = threading.Lock()
        # The size of the last read by owner and name of each (name, type, whole or part): the buffer
        # the next such read offers, so that it is one C call (_read).
        self._sizes: dict = {}

    def _handle(self) -> int:
        h = self._h
        if not h:
            raise InvalidHandleError("the store is closed", STATUS_CLOSED)
        return h
