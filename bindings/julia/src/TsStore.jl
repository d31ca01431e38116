"""
    TsStore

Julia binding of tsstore, a time-series store for power-system modelling: a NetCDF4 file of
arrays and a SQLite catalog beside it, through the tsstore C library. Two layers:
`TsStore.LibTsStore` (generated from `include/tsstore.h` by `scripts/gen-bindings`: one `ccall`
per C function, the structs and constants) and this module (stores, series, readers,
exceptions) in InfrastructureSystems.jl's vocabulary. Periods and timelines are the library's
own: this module converts units (Dates periods to milliseconds or months) and nothing more.

Array layout: Julia is column-major and the store row-major, so a Julia array's dimensions
are the store's reversed. Time is the last Julia dimension (a `3 × T` matrix is T steps of
three numbers); reads fill a Julia array of the reversed shape in place, with no copy.
"""
module TsStore

using Dates

include("LibTsStore.jl")
using .LibTsStore
const L = LibTsStore

include("compat.jl")
include("errors.jl")
include("convert.jl")
include("types.jl")
include("store.jl")
include("readers.jl")
include("catalog.jl")
include("vocabulary.jl")

export Quarter  # Dates.Quarter where Julia has it (1.6+), compat.jl's stand-in on 1.5
export Store, Key, TimeSeriesData, Forecast, SingleTimeSeries, NonSequentialTimeSeries, Deterministic, Probabilistic,
       Scenarios, OwnerCategory, COMPONENT, SUPPLEMENTAL_ATTRIBUTE, SeriesType, SINGLE_TIME_SERIES,
       NON_SEQUENTIAL_TIME_SERIES, DETERMINISTIC, DETERMINISTIC_SINGLE_TIME_SERIES, PROBABILISTIC, SCENARIOS,
       ABSTRACT_DETERMINISTIC,
       add_time_series!, add_time_series_bulk!, bulk_add, get_time_series, get_many, get_windows,
       has_time_series, remove_time_series!, remove_time_series_where!, list_keys, transform_single_time_series!, transaction,
       get_timestamps, window_starts, infer_resolution,
       StaticReader, ForecastReader, ReaderGroup, read_at!, read_step!, read_window!, timestamps,
       add_supplemental_attribute_associations!, add_parent_child_associations!,
       has_supplemental_attribute_association, has_parent_child_association,
       list_supplemental_attribute_associations, list_parent_child_associations,
       list_component_ids_with_attributes, list_attribute_ids_of_components, list_metadata, shared_arrays,
       remove_supplemental_attribute_associations!, remove_parent_child_associations!, children_of, parents_of,
       replace_association_component_id!, replace_parent_child_id!, supplemental_attribute_association_counts,
       parent_child_association_counts,
       get_time_series_array, get_time_series_values, get_time_series_timestamps, get_time_series_multiple,
       get_time_series_counts, get_forecast_horizon, get_forecast_interval, get_forecast_initial_timestamp,
       get_forecast_window_count, get_forecast_initial_times, begin_time_series_update,
       get_metadata, counts_by_type, count_arrays, count_by_hash, keys_by_hash, get_array,
       list_names, list_owner_types, list_resolutions, list_intervals, forecast_parameters, static_summary,
       copy_time_series!, rename_time_series!, replace_owner_id!,
       compact!, verify_integrity, check_static_consistency, flush!, store_recovered, persist, set_write_buffer!, set_read_cache!,
       TsStoreError, InvalidParameterError, NotFoundError, DuplicateTimeSeriesError, DuplicateAssociationError,
       IntegrityError, ReadOnlyError, TsStoreIOError, IncompatibleFormatError, InternalError, BufferTooSmallError,
       InvalidHandleError, UnknownStatusError

function __init__()
    v = L.tsstore_version()
    v ÷ 100 == L.TSSTORE_VERSION_NUMBER ÷ 100 ||
        error("TsStore: libtsstore version $v is not the $(L.TSSTORE_VERSION_STRING) this package was generated for " *
              "(major and minor must match)")
end

end # module TsStore
