"""Every test runs with the binding's unchecked calls checked: a call through _ffi.fast whose
arguments ctypes would have had to convert raises TypeError instead of passing a Python int
as a C int."""
import pytest

from tsstore import _ffi


@pytest.fixture(autouse=True)
def _unchecked_calls_checked():
    with _ffi.verify_unchecked():
        yield
