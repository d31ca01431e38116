"""tsstore: a time-series store for power-system modelling, over the tsstore C library.

A store is a pair of files, <name>.nc (NetCDF4 arrays) and <name>.nc.sqlite (the catalog)::

    import datetime as dt, numpy as np, tsstore
    with tsstore.Store.create("system.nc") as store:
        key = store.add_time_series(
            tsstore.SingleTimeSeries("max_active_power", dt.datetime(2030, 1, 1), "PT1H", np.arange(24.0)),
            owner_id=17, owner_type="ThermalStandard", units="MW")
        ts = store.get_time_series(17, "max_active_power")   # or store.get_time_series(key)
"""
from ._errors import (BufferTooSmallError, DuplicateAssociationError, DuplicateTimeSeriesError, IncompatibleFormatError,
                      IntegrityError, InternalError, InvalidHandleError, InvalidParameterError, NotFoundError,
                      ReadOnlyError, TsStoreError, TsStoreIOError)
from ._convert import Period
from ._ffi import VERSION, set_log_callback
from ._keylist import KeyList
from ._readers import ForecastReader, Group, StaticReader
from ._series import (Deterministic, Key, NonSequentialTimeSeries, OwnerCategory, Probabilistic, Scenarios, Series,
                      SeriesType, SingleTimeSeries, from_pandas)
from ._store import Batch, Store

__version__ = "0.3.1"

__all__ = [
    "Store", "Batch", "Period", "from_pandas", "StaticReader", "ForecastReader", "Group", "Key", "KeyList", "Series", "OwnerCategory", "SeriesType", "SingleTimeSeries", "NonSequentialTimeSeries",
    "Deterministic", "Probabilistic", "Scenarios", "TsStoreError", "InvalidParameterError", "NotFoundError",
    "DuplicateTimeSeriesError", "DuplicateAssociationError", "IntegrityError", "ReadOnlyError", "TsStoreIOError",
    "IncompatibleFormatError", "InternalError", "BufferTooSmallError", "InvalidHandleError", "VERSION",
    "set_log_callback",
]
