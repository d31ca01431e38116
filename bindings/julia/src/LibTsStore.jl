"""
    LibTsStore

The raw layer: one `ccall` per function of `include/tsstore.h`, under its C name, with the C
types spelled out and typed pointer handles (`Ptr{tsstore_store}`, …). Nothing here checks
statuses or owns memory; the user layer (`TsStore`) does.

The library is located when the package loads (`__init__`), never at precompile time: from
`ENV["TSSTORE_LIBRARY"]`, else `deps/libtsstore.so` next to the package, else the repository's
CMake build (`build/cmake/lib/libtsstore.so`). Every symbol is resolved then, so a library
that lacks one fails at load with its name, not in the middle of a run.
"""
module LibTsStore

using Libdl

# Opaque handle types: the library's handles are never dereferenced on this side.
mutable struct tsstore_store end
mutable struct tsstore_key end
mutable struct tsstore_keys end
mutable struct tsstore_series end
mutable struct tsstore_filter end
mutable struct tsstore_batch end
mutable struct tsstore_static_reader end
mutable struct tsstore_forecast_reader end
mutable struct tsstore_metadata end
mutable struct tsstore_strings end
mutable struct tsstore_associations end

#: Every function of the header, resolved at load time.
const FUNCTIONS = (
    :tsstore_version,
    :tsstore_status_name,
    :tsstore_last_error,
    :tsstore_set_log_callback,
    :tsstore_create,
    :tsstore_open,
    :tsstore_open_in_memory,
    :tsstore_close,
    :tsstore_flush,
    :tsstore_persist,
    :tsstore_store_last_error,
    :tsstore_store_recovered,
    :tsstore_key_new,
    :tsstore_key_free,
    :tsstore_key_owner,
    :tsstore_key_series_type,
    :tsstore_key_name,
    :tsstore_key_resolution,
    :tsstore_key_interval,
    :tsstore_key_features,
    :tsstore_add_single,
    :tsstore_add_nonsequential,
    :tsstore_add_forecast,
    :tsstore_has,
    :tsstore_get,
    :tsstore_get_range,
    :tsstore_get_windows,
    :tsstore_series_free,
    :tsstore_series_info,
    :tsstore_series_shape,
    :tsstore_series_data,
    :tsstore_series_timestamps,
    :tsstore_series_resolution,
    :tsstore_series_horizon,
    :tsstore_series_interval,
    :tsstore_series_percentiles,
    :tsstore_remove,
    :tsstore_list_keys,
    :tsstore_filter_new,
    :tsstore_filter_free,
    :tsstore_filter_owner,
    :tsstore_filter_owner_category,
    :tsstore_filter_series_type,
    :tsstore_filter_name,
    :tsstore_filter_name_glob,
    :tsstore_filter_owner_type,
    :tsstore_filter_resolution,
    :tsstore_filter_interval,
    :tsstore_filter_features,
    :tsstore_list_keys_where,
    :tsstore_remove_where,
    :tsstore_keys_by_hash,
    :tsstore_keys_len,
    :tsstore_keys_get,
    :tsstore_keys_free,
    :tsstore_begin,
    :tsstore_commit,
    :tsstore_rollback,
    :tsstore_set_write_buffer,
    :tsstore_set_read_cache,
    :tsstore_batch_new,
    :tsstore_batch_add_single,
    :tsstore_batch_add_nonsequential,
    :tsstore_batch_add_forecast,
    :tsstore_batch_len,
    :tsstore_batch_commit,
    :tsstore_batch_free,
    :tsstore_transform_single_time_series,
    :tsstore_get_many,
    :tsstore_static_reader_new,
    :tsstore_static_reader_grid,
    :tsstore_static_reader_read,
    :tsstore_static_reader_read_step,
    :tsstore_static_reader_groups,
    :tsstore_static_reader_group_info,
    :tsstore_static_reader_group_keys,
    :tsstore_static_reader_group_values,
    :tsstore_static_reader_free,
    :tsstore_forecast_reader_new,
    :tsstore_forecast_reader_grid,
    :tsstore_forecast_reader_read,
    :tsstore_forecast_reader_read_window,
    :tsstore_forecast_reader_groups,
    :tsstore_forecast_reader_group_info,
    :tsstore_forecast_reader_group_keys,
    :tsstore_forecast_reader_group_values,
    :tsstore_forecast_reader_free,
    :tsstore_get_metadata,
    :tsstore_metadata_free,
    :tsstore_metadata_info,
    :tsstore_metadata_element_shape,
    :tsstore_metadata_text,
    :tsstore_metadata_hash,
    :tsstore_metadata_key,
    :tsstore_list_distinct,
    :tsstore_strings_len,
    :tsstore_strings_get,
    :tsstore_strings_free,
    :tsstore_counts_by_type,
    :tsstore_count_arrays,
    :tsstore_count_by_hash,
    :tsstore_get_array,
    :tsstore_forecast_parameters,
    :tsstore_static_summary,
    :tsstore_copy_series,
    :tsstore_rename_series,
    :tsstore_replace_owner_id,
    :tsstore_add_associations,
    :tsstore_has_association,
    :tsstore_list_associations,
    :tsstore_remove_associations,
    :tsstore_replace_association_id,
    :tsstore_association_counts,
    :tsstore_associations_len,
    :tsstore_associations_ids,
    :tsstore_associations_type,
    :tsstore_associations_free,
    :tsstore_compact,
    :tsstore_verify_integrity,
    :tsstore_check_static_consistency,
)

const LIBRARY = Ref{Ptr{Cvoid}}(C_NULL)
const LIBRARY_PATH = Ref{String}("")
const SYMBOLS = Dict{Symbol,Ptr{Cvoid}}()

"""The places the library is looked for, in order."""
function candidates()
    here = dirname(@__DIR__)  # bindings/julia
    found = String[]
    env = get(ENV, "TSSTORE_LIBRARY", "")
    isempty(env) || push!(found, env)
    push!(found, joinpath(here, "deps", "libtsstore.so"))
    push!(found, normpath(joinpath(here, "..", "..", "build", "cmake", "lib", "libtsstore.so")))
    return found
end

function __init__()
    tried = String[]
    for path in candidates()
        if !isfile(path)
            push!(tried, "$path: not found")
            continue
        end
        handle = Libdl.dlopen(path, Libdl.RTLD_LAZY | Libdl.RTLD_LOCAL; throw_error = false)
        if handle === nothing
            push!(tried, "$path: cannot be loaded")
            continue
        end
        LIBRARY[] = handle
        LIBRARY_PATH[] = path
        for name in FUNCTIONS
            ptr = Libdl.dlsym(handle, name; throw_error = false)
            ptr === nothing && error("TsStore: $path has no function $name; it is older than this package")
            SYMBOLS[name] = ptr
        end
        return
    end
    error("TsStore: cannot load libtsstore.so. Tried:\n  " * join(tried, "\n  ") *
          "\nBuild it (`cmake -S . -B build/cmake && cmake --build build/cmake` in the repository) or set " *
          "ENV[\"TSSTORE_LIBRARY\"] to a built libtsstore.so before `using TsStore`.")
end

"""The address of a library function (resolved in `__init__`)."""
@inline sym(name::Symbol) = SYMBOLS[name]

tsstore_version() = ccall(sym(:tsstore_version), Int32, ())
tsstore_status_name(status) =
    ccall(sym(:tsstore_status_name), Ptr{UInt8}, (Int32,), status)
tsstore_last_error(buf, capacity, needed) =
    ccall(sym(:tsstore_last_error), Int32, (Ptr{UInt8}, Csize_t, Ptr{Csize_t}), buf, capacity, needed)
tsstore_set_log_callback(fn, user) =
    ccall(sym(:tsstore_set_log_callback), Int32, (Ptr{Cvoid}, Ptr{Cvoid}), fn, user)
tsstore_create(path, compression, out) =
    ccall(sym(:tsstore_create), Int32, (Ptr{UInt8}, Ptr{UInt8}, Ptr{Ptr{tsstore_store}}), path, compression, out)
tsstore_open(path, read_only, out) =
    ccall(sym(:tsstore_open), Int32, (Ptr{UInt8}, Int32, Ptr{Ptr{tsstore_store}}), path, read_only, out)
tsstore_open_in_memory(compression, out) =
    ccall(sym(:tsstore_open_in_memory), Int32, (Ptr{UInt8}, Ptr{Ptr{tsstore_store}}), compression, out)
tsstore_close(store) =
    ccall(sym(:tsstore_close), Int32, (Ptr{tsstore_store},), store)
tsstore_flush(store) =
    ccall(sym(:tsstore_flush), Int32, (Ptr{tsstore_store},), store)
tsstore_persist(store, path) =
    ccall(sym(:tsstore_persist), Int32, (Ptr{tsstore_store}, Ptr{UInt8}), store, path)
tsstore_store_last_error(store, buf, capacity, needed) =
    ccall(sym(:tsstore_store_last_error), Int32, (Ptr{tsstore_store}, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), store, buf, capacity, needed)
tsstore_store_recovered(store, buf, capacity, needed) =
    ccall(sym(:tsstore_store_recovered), Int32, (Ptr{tsstore_store}, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), store, buf, capacity, needed)
tsstore_key_new(owner_id, owner_category, series_type, name, resolution, interval, features_json, out) =
    ccall(sym(:tsstore_key_new), Int32, (Int64, Int32, Int32, Ptr{UInt8}, Ptr{UInt8}, Ptr{UInt8}, Ptr{UInt8}, Ptr{Ptr{tsstore_key}}), owner_id, owner_category, series_type, name, resolution, interval, features_json, out)
tsstore_key_free(key) =
    ccall(sym(:tsstore_key_free), Cvoid, (Ptr{tsstore_key},), key)
tsstore_key_owner(key, owner_id, owner_category) =
    ccall(sym(:tsstore_key_owner), Int32, (Ptr{tsstore_key}, Ptr{Int64}, Ptr{Int32}), key, owner_id, owner_category)
tsstore_key_series_type(key, series_type) =
    ccall(sym(:tsstore_key_series_type), Int32, (Ptr{tsstore_key}, Ptr{Int32}), key, series_type)
tsstore_key_name(key, buf, capacity, needed) =
    ccall(sym(:tsstore_key_name), Int32, (Ptr{tsstore_key}, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), key, buf, capacity, needed)
tsstore_key_resolution(key, buf, capacity, needed) =
    ccall(sym(:tsstore_key_resolution), Int32, (Ptr{tsstore_key}, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), key, buf, capacity, needed)
tsstore_key_interval(key, buf, capacity, needed) =
    ccall(sym(:tsstore_key_interval), Int32, (Ptr{tsstore_key}, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), key, buf, capacity, needed)
tsstore_key_features(key, buf, capacity, needed) =
    ccall(sym(:tsstore_key_features), Int32, (Ptr{tsstore_key}, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), key, buf, capacity, needed)
tsstore_add_single(store, owner_id, owner_type, owner_category, name, initial_ms, resolution, dtype, shape, ndim, data, nbytes, features_json, units, ext, key_out) =
    ccall(sym(:tsstore_add_single), Int32, (Ptr{tsstore_store}, Int64, Ptr{UInt8}, Int32, Ptr{UInt8}, Int64, Ptr{UInt8}, Int32, Ptr{Int64}, Csize_t, Ptr{Cvoid}, Csize_t, Ptr{UInt8}, Ptr{UInt8}, Ptr{UInt8}, Ptr{Ptr{tsstore_key}}), store, owner_id, owner_type, owner_category, name, initial_ms, resolution, dtype, shape, ndim, data, nbytes, features_json, units, ext, key_out)
tsstore_add_nonsequential(store, owner_id, owner_type, owner_category, name, timestamps_ms, n_timestamps, dtype, shape, ndim, data, nbytes, features_json, units, ext, key_out) =
    ccall(sym(:tsstore_add_nonsequential), Int32, (Ptr{tsstore_store}, Int64, Ptr{UInt8}, Int32, Ptr{UInt8}, Ptr{Int64}, Csize_t, Int32, Ptr{Int64}, Csize_t, Ptr{Cvoid}, Csize_t, Ptr{UInt8}, Ptr{UInt8}, Ptr{UInt8}, Ptr{Ptr{tsstore_key}}), store, owner_id, owner_type, owner_category, name, timestamps_ms, n_timestamps, dtype, shape, ndim, data, nbytes, features_json, units, ext, key_out)
tsstore_add_forecast(store, owner_id, owner_type, owner_category, name, series_type, initial_ms, resolution, horizon, interval, count, percentiles, n_percentiles, dtype, shape, ndim, data, nbytes, features_json, units, ext, key_out) =
    ccall(sym(:tsstore_add_forecast), Int32, (Ptr{tsstore_store}, Int64, Ptr{UInt8}, Int32, Ptr{UInt8}, Int32, Int64, Ptr{UInt8}, Ptr{UInt8}, Ptr{UInt8}, Int64, Ptr{Float64}, Csize_t, Int32, Ptr{Int64}, Csize_t, Ptr{Cvoid}, Csize_t, Ptr{UInt8}, Ptr{UInt8}, Ptr{UInt8}, Ptr{Ptr{tsstore_key}}), store, owner_id, owner_type, owner_category, name, series_type, initial_ms, resolution, horizon, interval, count, percentiles, n_percentiles, dtype, shape, ndim, data, nbytes, features_json, units, ext, key_out)
tsstore_has(store, key, found) =
    ccall(sym(:tsstore_has), Int32, (Ptr{tsstore_store}, Ptr{tsstore_key}, Ptr{Int32}), store, key, found)
tsstore_get(store, key, out) =
    ccall(sym(:tsstore_get), Int32, (Ptr{tsstore_store}, Ptr{tsstore_key}, Ptr{Ptr{tsstore_series}}), store, key, out)
tsstore_get_range(store, key, start_ms, end_ms, out) =
    ccall(sym(:tsstore_get_range), Int32, (Ptr{tsstore_store}, Ptr{tsstore_key}, Int64, Int64, Ptr{Ptr{tsstore_series}}), store, key, start_ms, end_ms, out)
tsstore_get_windows(store, key, first_ms, last_ms, out) =
    ccall(sym(:tsstore_get_windows), Int32, (Ptr{tsstore_store}, Ptr{tsstore_key}, Int64, Int64, Ptr{Ptr{tsstore_series}}), store, key, first_ms, last_ms, out)
tsstore_series_free(series) =
    ccall(sym(:tsstore_series_free), Cvoid, (Ptr{tsstore_series},), series)
tsstore_series_info(series, series_type, dtype, ndim, initial_ms, count) =
    ccall(sym(:tsstore_series_info), Int32, (Ptr{tsstore_series}, Ptr{Int32}, Ptr{Int32}, Ptr{Csize_t}, Ptr{Int64}, Ptr{Int64}), series, series_type, dtype, ndim, initial_ms, count)
tsstore_series_shape(series, shape, capacity, ndim) =
    ccall(sym(:tsstore_series_shape), Int32, (Ptr{tsstore_series}, Ptr{Int64}, Csize_t, Ptr{Csize_t}), series, shape, capacity, ndim)
tsstore_series_data(series, buf, capacity, needed) =
    ccall(sym(:tsstore_series_data), Int32, (Ptr{tsstore_series}, Ptr{Cvoid}, Csize_t, Ptr{Csize_t}), series, buf, capacity, needed)
tsstore_series_timestamps(series, buf, capacity, needed) =
    ccall(sym(:tsstore_series_timestamps), Int32, (Ptr{tsstore_series}, Ptr{Int64}, Csize_t, Ptr{Csize_t}), series, buf, capacity, needed)
tsstore_series_resolution(series, buf, capacity, needed) =
    ccall(sym(:tsstore_series_resolution), Int32, (Ptr{tsstore_series}, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), series, buf, capacity, needed)
tsstore_series_horizon(series, buf, capacity, needed) =
    ccall(sym(:tsstore_series_horizon), Int32, (Ptr{tsstore_series}, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), series, buf, capacity, needed)
tsstore_series_interval(series, buf, capacity, needed) =
    ccall(sym(:tsstore_series_interval), Int32, (Ptr{tsstore_series}, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), series, buf, capacity, needed)
tsstore_series_percentiles(series, buf, capacity, needed) =
    ccall(sym(:tsstore_series_percentiles), Int32, (Ptr{tsstore_series}, Ptr{Float64}, Csize_t, Ptr{Csize_t}), series, buf, capacity, needed)
tsstore_remove(store, key) =
    ccall(sym(:tsstore_remove), Int32, (Ptr{tsstore_store}, Ptr{tsstore_key}), store, key)
tsstore_list_keys(store, has_owner_id, owner_id, owner_category, series_type, name, resolution, features_json, out) =
    ccall(sym(:tsstore_list_keys), Int32, (Ptr{tsstore_store}, Int32, Int64, Int32, Int32, Ptr{UInt8}, Ptr{UInt8}, Ptr{UInt8}, Ptr{Ptr{tsstore_keys}}), store, has_owner_id, owner_id, owner_category, series_type, name, resolution, features_json, out)
tsstore_filter_new(out) =
    ccall(sym(:tsstore_filter_new), Int32, (Ptr{Ptr{tsstore_filter}},), out)
tsstore_filter_free(filter) =
    ccall(sym(:tsstore_filter_free), Cvoid, (Ptr{tsstore_filter},), filter)
tsstore_filter_owner(filter, owner_id, owner_category) =
    ccall(sym(:tsstore_filter_owner), Int32, (Ptr{tsstore_filter}, Int64, Int32), filter, owner_id, owner_category)
tsstore_filter_owner_category(filter, owner_category) =
    ccall(sym(:tsstore_filter_owner_category), Int32, (Ptr{tsstore_filter}, Int32), filter, owner_category)
tsstore_filter_series_type(filter, series_type) =
    ccall(sym(:tsstore_filter_series_type), Int32, (Ptr{tsstore_filter}, Int32), filter, series_type)
tsstore_filter_name(filter, name) =
    ccall(sym(:tsstore_filter_name), Int32, (Ptr{tsstore_filter}, Ptr{UInt8}), filter, name)
tsstore_filter_name_glob(filter, pattern) =
    ccall(sym(:tsstore_filter_name_glob), Int32, (Ptr{tsstore_filter}, Ptr{UInt8}), filter, pattern)
tsstore_filter_owner_type(filter, owner_type) =
    ccall(sym(:tsstore_filter_owner_type), Int32, (Ptr{tsstore_filter}, Ptr{UInt8}), filter, owner_type)
tsstore_filter_resolution(filter, resolution) =
    ccall(sym(:tsstore_filter_resolution), Int32, (Ptr{tsstore_filter}, Ptr{UInt8}), filter, resolution)
tsstore_filter_interval(filter, interval) =
    ccall(sym(:tsstore_filter_interval), Int32, (Ptr{tsstore_filter}, Ptr{UInt8}), filter, interval)
tsstore_filter_features(filter, features_json) =
    ccall(sym(:tsstore_filter_features), Int32, (Ptr{tsstore_filter}, Ptr{UInt8}), filter, features_json)
tsstore_list_keys_where(store, filter, out) =
    ccall(sym(:tsstore_list_keys_where), Int32, (Ptr{tsstore_store}, Ptr{tsstore_filter}, Ptr{Ptr{tsstore_keys}}), store, filter, out)
tsstore_remove_where(store, filter, removed) =
    ccall(sym(:tsstore_remove_where), Int32, (Ptr{tsstore_store}, Ptr{tsstore_filter}, Ptr{Int64}), store, filter, removed)
tsstore_keys_by_hash(store, hash, out) =
    ccall(sym(:tsstore_keys_by_hash), Int32, (Ptr{tsstore_store}, Ptr{UInt8}, Ptr{Ptr{tsstore_keys}}), store, hash, out)
tsstore_keys_len(keys, len) =
    ccall(sym(:tsstore_keys_len), Int32, (Ptr{tsstore_keys}, Ptr{Csize_t}), keys, len)
tsstore_keys_get(keys, i, out) =
    ccall(sym(:tsstore_keys_get), Int32, (Ptr{tsstore_keys}, Csize_t, Ptr{Ptr{tsstore_key}}), keys, i, out)
tsstore_keys_free(keys) =
    ccall(sym(:tsstore_keys_free), Cvoid, (Ptr{tsstore_keys},), keys)
tsstore_begin(store) =
    ccall(sym(:tsstore_begin), Int32, (Ptr{tsstore_store},), store)
tsstore_commit(store) =
    ccall(sym(:tsstore_commit), Int32, (Ptr{tsstore_store},), store)
tsstore_rollback(store) =
    ccall(sym(:tsstore_rollback), Int32, (Ptr{tsstore_store},), store)
tsstore_set_write_buffer(store, bytes) =
    ccall(sym(:tsstore_set_write_buffer), Int32, (Ptr{tsstore_store}, Int64), store, bytes)
tsstore_set_read_cache(store, bytes) =
    ccall(sym(:tsstore_set_read_cache), Int32, (Ptr{tsstore_store}, Int64), store, bytes)
tsstore_batch_new(store, out) =
    ccall(sym(:tsstore_batch_new), Int32, (Ptr{tsstore_store}, Ptr{Ptr{tsstore_batch}}), store, out)
tsstore_batch_add_single(batch, owner_id, owner_type, owner_category, name, initial_ms, resolution, dtype, shape, ndim, data, nbytes, features_json, units, ext) =
    ccall(sym(:tsstore_batch_add_single), Int32, (Ptr{tsstore_batch}, Int64, Ptr{UInt8}, Int32, Ptr{UInt8}, Int64, Ptr{UInt8}, Int32, Ptr{Int64}, Csize_t, Ptr{Cvoid}, Csize_t, Ptr{UInt8}, Ptr{UInt8}, Ptr{UInt8}), batch, owner_id, owner_type, owner_category, name, initial_ms, resolution, dtype, shape, ndim, data, nbytes, features_json, units, ext)
tsstore_batch_add_nonsequential(batch, owner_id, owner_type, owner_category, name, timestamps_ms, n_timestamps, dtype, shape, ndim, data, nbytes, features_json, units, ext) =
    ccall(sym(:tsstore_batch_add_nonsequential), Int32, (Ptr{tsstore_batch}, Int64, Ptr{UInt8}, Int32, Ptr{UInt8}, Ptr{Int64}, Csize_t, Int32, Ptr{Int64}, Csize_t, Ptr{Cvoid}, Csize_t, Ptr{UInt8}, Ptr{UInt8}, Ptr{UInt8}), batch, owner_id, owner_type, owner_category, name, timestamps_ms, n_timestamps, dtype, shape, ndim, data, nbytes, features_json, units, ext)
tsstore_batch_add_forecast(batch, owner_id, owner_type, owner_category, name, series_type, initial_ms, resolution, horizon, interval, count, percentiles, n_percentiles, dtype, shape, ndim, data, nbytes, features_json, units, ext) =
    ccall(sym(:tsstore_batch_add_forecast), Int32, (Ptr{tsstore_batch}, Int64, Ptr{UInt8}, Int32, Ptr{UInt8}, Int32, Int64, Ptr{UInt8}, Ptr{UInt8}, Ptr{UInt8}, Int64, Ptr{Float64}, Csize_t, Int32, Ptr{Int64}, Csize_t, Ptr{Cvoid}, Csize_t, Ptr{UInt8}, Ptr{UInt8}, Ptr{UInt8}), batch, owner_id, owner_type, owner_category, name, series_type, initial_ms, resolution, horizon, interval, count, percentiles, n_percentiles, dtype, shape, ndim, data, nbytes, features_json, units, ext)
tsstore_batch_len(batch, len) =
    ccall(sym(:tsstore_batch_len), Int32, (Ptr{tsstore_batch}, Ptr{Csize_t}), batch, len)
tsstore_batch_commit(batch, keys_out) =
    ccall(sym(:tsstore_batch_commit), Int32, (Ptr{tsstore_batch}, Ptr{Ptr{tsstore_keys}}), batch, keys_out)
tsstore_batch_free(batch) =
    ccall(sym(:tsstore_batch_free), Cvoid, (Ptr{tsstore_batch},), batch)
tsstore_transform_single_time_series(store, horizon, interval, owner_category, resolution, added) =
    ccall(sym(:tsstore_transform_single_time_series), Int32, (Ptr{tsstore_store}, Ptr{UInt8}, Ptr{UInt8}, Int32, Ptr{UInt8}, Ptr{Int64}), store, horizon, interval, owner_category, resolution, added)
tsstore_get_many(store, keys, n, out) =
    ccall(sym(:tsstore_get_many), Int32, (Ptr{tsstore_store}, Ptr{Ptr{tsstore_key}}, Csize_t, Ptr{Ptr{tsstore_series}}), store, keys, n, out)
tsstore_static_reader_new(store, resolution, keys, n, out) =
    ccall(sym(:tsstore_static_reader_new), Int32, (Ptr{tsstore_store}, Ptr{UInt8}, Ptr{Ptr{tsstore_key}}, Csize_t, Ptr{Ptr{tsstore_static_reader}}), store, resolution, keys, n, out)
tsstore_static_reader_grid(reader, initial_ms, length) =
    ccall(sym(:tsstore_static_reader_grid), Int32, (Ptr{tsstore_static_reader}, Ptr{Int64}, Ptr{Int64}), reader, initial_ms, length)
tsstore_static_reader_read(reader, timestamp_ms) =
    ccall(sym(:tsstore_static_reader_read), Int32, (Ptr{tsstore_static_reader}, Int64), reader, timestamp_ms)
tsstore_static_reader_read_step(reader, step) =
    ccall(sym(:tsstore_static_reader_read_step), Int32, (Ptr{tsstore_static_reader}, Int64), reader, step)
tsstore_static_reader_groups(reader, n_groups) =
    ccall(sym(:tsstore_static_reader_groups), Int32, (Ptr{tsstore_static_reader}, Ptr{Csize_t}), reader, n_groups)
tsstore_static_reader_group_info(reader, group, dtype, n_keys, element_shape, capacity, ndim) =
    ccall(sym(:tsstore_static_reader_group_info), Int32, (Ptr{tsstore_static_reader}, Csize_t, Ptr{Int32}, Ptr{Csize_t}, Ptr{Int64}, Csize_t, Ptr{Csize_t}), reader, group, dtype, n_keys, element_shape, capacity, ndim)
tsstore_static_reader_group_keys(reader, group, buf, capacity, needed) =
    ccall(sym(:tsstore_static_reader_group_keys), Int32, (Ptr{tsstore_static_reader}, Csize_t, Ptr{Int64}, Csize_t, Ptr{Csize_t}), reader, group, buf, capacity, needed)
tsstore_static_reader_group_values(reader, group, buf, capacity, needed) =
    ccall(sym(:tsstore_static_reader_group_values), Int32, (Ptr{tsstore_static_reader}, Csize_t, Ptr{Cvoid}, Csize_t, Ptr{Csize_t}), reader, group, buf, capacity, needed)
tsstore_static_reader_free(reader) =
    ccall(sym(:tsstore_static_reader_free), Cvoid, (Ptr{tsstore_static_reader},), reader)
tsstore_forecast_reader_new(store, series_type, resolution, keys, n, out) =
    ccall(sym(:tsstore_forecast_reader_new), Int32, (Ptr{tsstore_store}, Int32, Ptr{UInt8}, Ptr{Ptr{tsstore_key}}, Csize_t, Ptr{Ptr{tsstore_forecast_reader}}), store, series_type, resolution, keys, n, out)
tsstore_forecast_reader_grid(reader, initial_ms, count) =
    ccall(sym(:tsstore_forecast_reader_grid), Int32, (Ptr{tsstore_forecast_reader}, Ptr{Int64}, Ptr{Int64}), reader, initial_ms, count)
tsstore_forecast_reader_read(reader, start_ms) =
    ccall(sym(:tsstore_forecast_reader_read), Int32, (Ptr{tsstore_forecast_reader}, Int64), reader, start_ms)
tsstore_forecast_reader_read_window(reader, window) =
    ccall(sym(:tsstore_forecast_reader_read_window), Int32, (Ptr{tsstore_forecast_reader}, Int64), reader, window)
tsstore_forecast_reader_groups(reader, n_groups) =
    ccall(sym(:tsstore_forecast_reader_groups), Int32, (Ptr{tsstore_forecast_reader}, Ptr{Csize_t}), reader, n_groups)
tsstore_forecast_reader_group_info(reader, group, dtype, n_keys, layers, steps, element_shape, capacity, ndim) =
    ccall(sym(:tsstore_forecast_reader_group_info), Int32, (Ptr{tsstore_forecast_reader}, Csize_t, Ptr{Int32}, Ptr{Csize_t}, Ptr{Int64}, Ptr{Int64}, Ptr{Int64}, Csize_t, Ptr{Csize_t}), reader, group, dtype, n_keys, layers, steps, element_shape, capacity, ndim)
tsstore_forecast_reader_group_keys(reader, group, buf, capacity, needed) =
    ccall(sym(:tsstore_forecast_reader_group_keys), Int32, (Ptr{tsstore_forecast_reader}, Csize_t, Ptr{Int64}, Csize_t, Ptr{Csize_t}), reader, group, buf, capacity, needed)
tsstore_forecast_reader_group_values(reader, group, buf, capacity, needed) =
    ccall(sym(:tsstore_forecast_reader_group_values), Int32, (Ptr{tsstore_forecast_reader}, Csize_t, Ptr{Cvoid}, Csize_t, Ptr{Csize_t}), reader, group, buf, capacity, needed)
tsstore_forecast_reader_free(reader) =
    ccall(sym(:tsstore_forecast_reader_free), Cvoid, (Ptr{tsstore_forecast_reader},), reader)
tsstore_get_metadata(store, key, out) =
    ccall(sym(:tsstore_get_metadata), Int32, (Ptr{tsstore_store}, Ptr{tsstore_key}, Ptr{Ptr{tsstore_metadata}}), store, key, out)
tsstore_metadata_free(metadata) =
    ccall(sym(:tsstore_metadata_free), Cvoid, (Ptr{tsstore_metadata},), metadata)
tsstore_metadata_info(metadata, series_type, dtype, length, count, initial_ms) =
    ccall(sym(:tsstore_metadata_info), Int32, (Ptr{tsstore_metadata}, Ptr{Int32}, Ptr{Int32}, Ptr{Int64}, Ptr{Int64}, Ptr{Int64}), metadata, series_type, dtype, length, count, initial_ms)
tsstore_metadata_element_shape(metadata, shape, capacity, ndim) =
    ccall(sym(:tsstore_metadata_element_shape), Int32, (Ptr{tsstore_metadata}, Ptr{Int64}, Csize_t, Ptr{Csize_t}), metadata, shape, capacity, ndim)
tsstore_metadata_text(metadata, field, buf, capacity, needed) =
    ccall(sym(:tsstore_metadata_text), Int32, (Ptr{tsstore_metadata}, Int32, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), metadata, field, buf, capacity, needed)
tsstore_metadata_hash(metadata, which, hash) =
    ccall(sym(:tsstore_metadata_hash), Int32, (Ptr{tsstore_metadata}, Int32, Ptr{UInt8}), metadata, which, hash)
tsstore_metadata_key(metadata, out) =
    ccall(sym(:tsstore_metadata_key), Int32, (Ptr{tsstore_metadata}, Ptr{Ptr{tsstore_key}}), metadata, out)
tsstore_list_distinct(store, field, out) =
    ccall(sym(:tsstore_list_distinct), Int32, (Ptr{tsstore_store}, Int32, Ptr{Ptr{tsstore_strings}}), store, field, out)
tsstore_strings_len(strings, len) =
    ccall(sym(:tsstore_strings_len), Int32, (Ptr{tsstore_strings}, Ptr{Csize_t}), strings, len)
tsstore_strings_get(strings, i, buf, capacity, needed) =
    ccall(sym(:tsstore_strings_get), Int32, (Ptr{tsstore_strings}, Csize_t, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), strings, i, buf, capacity, needed)
tsstore_strings_free(strings) =
    ccall(sym(:tsstore_strings_free), Cvoid, (Ptr{tsstore_strings},), strings)
tsstore_counts_by_type(store, counts) =
    ccall(sym(:tsstore_counts_by_type), Int32, (Ptr{tsstore_store}, Ptr{Int64}), store, counts)
tsstore_count_arrays(store, n) =
    ccall(sym(:tsstore_count_arrays), Int32, (Ptr{tsstore_store}, Ptr{Int64}), store, n)
tsstore_count_by_hash(store, hash, counts) =
    ccall(sym(:tsstore_count_by_hash), Int32, (Ptr{tsstore_store}, Ptr{UInt8}, Ptr{Int64}), store, hash, counts)
tsstore_get_array(store, hash, out) =
    ccall(sym(:tsstore_get_array), Int32, (Ptr{tsstore_store}, Ptr{UInt8}, Ptr{Ptr{tsstore_series}}), store, hash, out)
tsstore_forecast_parameters(store, buf, capacity, needed) =
    ccall(sym(:tsstore_forecast_parameters), Int32, (Ptr{tsstore_store}, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), store, buf, capacity, needed)
tsstore_static_summary(store, buf, capacity, needed) =
    ccall(sym(:tsstore_static_summary), Int32, (Ptr{tsstore_store}, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), store, buf, capacity, needed)
tsstore_copy_series(store, key, owner_id, owner_type, owner_category, new_name, key_out) =
    ccall(sym(:tsstore_copy_series), Int32, (Ptr{tsstore_store}, Ptr{tsstore_key}, Int64, Ptr{UInt8}, Int32, Ptr{UInt8}, Ptr{Ptr{tsstore_key}}), store, key, owner_id, owner_type, owner_category, new_name, key_out)
tsstore_rename_series(store, key, new_name, key_out) =
    ccall(sym(:tsstore_rename_series), Int32, (Ptr{tsstore_store}, Ptr{tsstore_key}, Ptr{UInt8}, Ptr{Ptr{tsstore_key}}), store, key, new_name, key_out)
tsstore_replace_owner_id(store, owner_category, old_id, new_id, moved) =
    ccall(sym(:tsstore_replace_owner_id), Int32, (Ptr{tsstore_store}, Int32, Int64, Int64, Ptr{Int64}), store, owner_category, old_id, new_id, moved)
tsstore_add_associations(store, table, n, a_ids, a_types, b_ids, b_types) =
    ccall(sym(:tsstore_add_associations), Int32, (Ptr{tsstore_store}, Int32, Csize_t, Ptr{Int64}, Ptr{Ptr{UInt8}}, Ptr{Int64}, Ptr{Ptr{UInt8}}), store, table, n, a_ids, a_types, b_ids, b_types)
tsstore_has_association(store, table, a_id, b_id, found) =
    ccall(sym(:tsstore_has_association), Int32, (Ptr{tsstore_store}, Int32, Int64, Int64, Ptr{Int32}), store, table, a_id, b_id, found)
tsstore_list_associations(store, table, a_ids, n_a, b_ids, n_b, a_type, b_type, out) =
    ccall(sym(:tsstore_list_associations), Int32, (Ptr{tsstore_store}, Int32, Ptr{Int64}, Csize_t, Ptr{Int64}, Csize_t, Ptr{UInt8}, Ptr{UInt8}, Ptr{Ptr{tsstore_associations}}), store, table, a_ids, n_a, b_ids, n_b, a_type, b_type, out)
tsstore_remove_associations(store, table, a_ids, n_a, b_ids, n_b, a_type, b_type, removed) =
    ccall(sym(:tsstore_remove_associations), Int32, (Ptr{tsstore_store}, Int32, Ptr{Int64}, Csize_t, Ptr{Int64}, Csize_t, Ptr{UInt8}, Ptr{UInt8}, Ptr{Int64}), store, table, a_ids, n_a, b_ids, n_b, a_type, b_type, removed)
tsstore_replace_association_id(store, table, old_id, new_id, changed) =
    ccall(sym(:tsstore_replace_association_id), Int32, (Ptr{tsstore_store}, Int32, Int64, Int64, Ptr{Int64}), store, table, old_id, new_id, changed)
tsstore_association_counts(store, table, rows, distinct_a, distinct_b) =
    ccall(sym(:tsstore_association_counts), Int32, (Ptr{tsstore_store}, Int32, Ptr{Int64}, Ptr{Int64}, Ptr{Int64}), store, table, rows, distinct_a, distinct_b)
tsstore_associations_len(rows, len) =
    ccall(sym(:tsstore_associations_len), Int32, (Ptr{tsstore_associations}, Ptr{Csize_t}), rows, len)
tsstore_associations_ids(rows, i, a_id, b_id) =
    ccall(sym(:tsstore_associations_ids), Int32, (Ptr{tsstore_associations}, Csize_t, Ptr{Int64}, Ptr{Int64}), rows, i, a_id, b_id)
tsstore_associations_type(rows, i, end_, buf, capacity, needed) =
    ccall(sym(:tsstore_associations_type), Int32, (Ptr{tsstore_associations}, Csize_t, Int32, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), rows, i, end_, buf, capacity, needed)
tsstore_associations_free(rows) =
    ccall(sym(:tsstore_associations_free), Cvoid, (Ptr{tsstore_associations},), rows)
tsstore_compact(store, slots_reclaimed, datasets_dropped, feature_sets_reclaimed, dead_standalone) =
    ccall(sym(:tsstore_compact), Int32, (Ptr{tsstore_store}, Ptr{Int64}, Ptr{Int64}, Ptr{Int64}, Ptr{Int64}), store, slots_reclaimed, datasets_dropped, feature_sets_reclaimed, dead_standalone)
tsstore_verify_integrity(store, arrays_checked, problems, buf, capacity, needed) =
    ccall(sym(:tsstore_verify_integrity), Int32, (Ptr{tsstore_store}, Ptr{Int64}, Ptr{Int64}, Ptr{UInt8}, Csize_t, Ptr{Csize_t}), store, arrays_checked, problems, buf, capacity, needed)
tsstore_check_static_consistency(store, consistent) =
    ccall(sym(:tsstore_check_static_consistency), Int32, (Ptr{tsstore_store}, Ptr{Int32}), store, consistent)

end # module LibTsStore
