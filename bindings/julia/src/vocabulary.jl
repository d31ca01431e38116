# InfrastructureSystems.jl's vocabulary for reading a store: the getters an IS.jl user writes,
# answering with plain Julia values (vectors, matrices, DateTimes) where IS.jl answers with
# TimeSeries.jl's TimeArray. Each resolves the series once (tsstore_get_info) and reads by the
# key that returned, whose id spares the catalog a second search.

"""
    get_time_series_array(store, T, owner_id, name; start_time, len, count, owner_category, resolution, interval, features...)
    get_time_series_array(store, key; start_time, len, count) -> NamedTuple

`(timestamps = …, values = …)` of part of a series, as IS.jl's `get_time_series_array`
gives a TimeArray.

- A SingleTimeSeries or NonSequentialTimeSeries: `len` steps from `start_time` (default: the
  first step, and every step after it). `values` has time along its last dimension.
- A forecast: the window starting at `start_time` (default: the first window), its first `len`
  steps (default: the horizon). With `count`, that many windows from there: `timestamps` is
  then a `count × len` matrix and `values` keeps the window axis, as the series' `data` does.

A `start_time` that is not a step (a window start, for a forecast) or a `len` past the series'
end is an `ArgumentError` naming it.
"""
get_time_series_array(s::Store, T, owner_id::Integer, name::AbstractString; start_time = nothing, len = nothing,
                      count = nothing, kw...) =
    series_array(s, which_named(T, owner_id, name; kw...), start_time, len, count)

get_time_series_array(s::Store, key::Key; start_time = nothing, len = nothing, count = nothing) =
    series_array(s, Which(key), start_time, len, count)

"""
    get_time_series_values(store, T, owner_id, name; start_time, len, count, ...)
    get_time_series_values(store, key; start_time, len, count)

The `values` of [`get_time_series_array`](@ref).
"""
get_time_series_values(s::Store, args...; kw...) = get_time_series_array(s, args...; kw...).values

"""
    get_time_series_timestamps(store, T, owner_id, name; start_time, len, count, ...)
    get_time_series_timestamps(store, key; start_time, len, count)

The `timestamps` of [`get_time_series_array`](@ref).
"""
get_time_series_timestamps(s::Store, args...; kw...) = get_time_series_array(s, args...; kw...).timestamps

function series_array(s::Store, w::Which, start_time, len, count)
    len === nothing || len >= 1 || throw(ArgumentError("len: $len steps; at least one"))
    count === nothing || count >= 1 || throw(ArgumentError("count: $count windows; at least one"))
    m = metadata(s, w)
    found = Which(m.key)
    if m.series_type in (SINGLE_TIME_SERIES, NON_SEQUENTIAL_TIME_SERIES)
        count === nothing || throw(ArgumentError("count: counts the windows of a forecast; " *
                                                 "$(m.series_type) takes start_time and len"))
        return static_array(s, found, m, start_time, len)
    end
    return forecast_array(s, found, m, start_time, len, count === nothing ? 1 : Int(count), count !== nothing)
end

function static_array(s::Store, w::Which, m, start_time, len)
    stop = nothing
    if len !== nothing && m.series_type == SINGLE_TIME_SERIES
        # Only the len steps asked for are read, not the rest of the series: the last is
        # len - 1 steps after the first, on the series' grid.
        t0 = start_time === nothing ? m.initial_timestamp : DateTime(start_time)
        stop = from_millis(timeline(millis(t0), m.resolution, Int(len))[end])
    end
    ts = read_part(s, w, start_time, stop)
    t = timestamps(ts)
    if start_time !== nothing && (isempty(t) || first(t) != DateTime(start_time))
        throw(ArgumentError("start_time: $(start_time) is not a step of $(m.key.name) ($(m.series_type))"))
    end
    n = len === nothing ? length(t) : Int(len)
    n <= length(t) || throw(ArgumentError("len: $n steps from $(first(t)), where $(m.key.name) has $(length(t))"))
    return (timestamps = t[1:n], values = copy(selectdim(ts.data, ndims(ts.data), 1:n)))
end

function forecast_array(s::Store, w::Which, m, start_time, len, count::Int, keep_windows::Bool)
    first_ms = millis(start_time === nothing ? m.initial_timestamp : start_time)
    last_ms = timeline(first_ms, m.interval, count)[end]
    f = read_series(s, w, :windows, first_ms, last_ms)
    horizon_steps = size(f.data, steps_axis(f))
    n = len === nothing ? horizon_steps : Int(len)
    n <= horizon_steps || throw(ArgumentError("len: $n steps, where a window of $(m.key.name) has $horizon_steps"))
    values = copy(selectdim(f.data, steps_axis(f), 1:n))
    starts = window_starts(f)
    stamps = Matrix{DateTime}(undef, length(starts), n)  # a row per window
    for (i, st) in enumerate(starts)
        stamps[i, :] = from_millis.(timeline(millis(st), f.resolution, n))
    end
    keep_windows && return (timestamps = stamps, values = values)
    return (timestamps = vec(stamps), values = dropdims(values; dims = windows_axis(f)))
end

# Where a forecast's windows and steps lie in its Julia data (the store's axes reversed):
# Deterministic (E..., count, H); Probabilistic and Scenarios (E..., count, H, P or S).
steps_axis(f::Deterministic) = ndims(f.data)
steps_axis(f::Forecast) = ndims(f.data) - 1
windows_axis(f::Forecast) = steps_axis(f) - 1

"""
    get_time_series_multiple(store, filter_func = nothing; type, name, resolution, owner_id, owner_category, features)

Every series the filters select, read in one bulk call, as IS.jl's `get_time_series_multiple`
gives them: `type` a series type (`SingleTimeSeries`, `Deterministic`, … or a `SeriesType`),
`name`, `resolution`, and the owner's id and category and features; `filter_func(ts)`, when
given, keeps those it returns true for. In insertion order.
"""
function get_time_series_multiple(s::Store, filter_func = nothing; type = nothing, name = nothing,
                                  resolution = nothing, owner_id = nothing, owner_category = nothing,
                                  features = nothing)
    keys = list_keys(s; series_type = type === nothing ? nothing : series_type(type), name = name,
                     resolution = resolution, owner_id = owner_id, owner_category = owner_category,
                     features = features)
    series = get_many(s, keys)
    return filter_func === nothing ? series : filter(filter_func, series)
end

"""
    get_time_series_counts(store) -> NamedTuple

What IS.jl's `get_time_series_counts` counts: `components_with_time_series`,
`supplemental_attributes_with_time_series` (owners holding at least one series),
`static_time_series_count` (SingleTimeSeries and NonSequentialTimeSeries) and `forecast_count`
(every forecast type, DeterministicSingleTimeSeries views included).
"""
function get_time_series_counts(s::Store)
    keys = list_keys(s)
    owners(c) = length(unique(k.owner_id for k in keys if k.owner_category == c))
    static = count(k -> k.series_type in (SINGLE_TIME_SERIES, NON_SEQUENTIAL_TIME_SERIES), keys)
    return (components_with_time_series = owners(COMPONENT),
            supplemental_attributes_with_time_series = owners(SUPPLEMENTAL_ATTRIBUTE),
            static_time_series_count = static, forecast_count = length(keys) - static)
end

"""
    get_forecast_horizon(store)
    get_forecast_interval(store)
    get_forecast_initial_timestamp(store)
    get_forecast_window_count(store)
    get_forecast_initial_times(store) -> Vector{DateTime}

The forecast parameters every forecast of the store shares, as IS.jl asks them of a system:
`nothing` when the store holds no forecast, an `ArgumentError` listing the values when its
forecasts disagree (see [`forecast_parameters`](@ref) for each group).
"""
get_forecast_horizon(s::Store) = shared_forecast_parameter(s, :horizon)
get_forecast_interval(s::Store) = shared_forecast_parameter(s, :interval)
get_forecast_initial_timestamp(s::Store) = shared_forecast_parameter(s, :initial_timestamp)
get_forecast_window_count(s::Store) = shared_forecast_parameter(s, :count)

function get_forecast_initial_times(s::Store)
    t0, interval, n = get_forecast_initial_timestamp(s), get_forecast_interval(s), get_forecast_window_count(s)
    t0 === nothing && return DateTime[]
    return from_millis.(timeline(millis(t0), interval, n))
end

function shared_forecast_parameter(s::Store, field::Symbol)
    values = unique(getfield(p, field) for p in forecast_parameters(s))
    isempty(values) && return nothing
    length(values) == 1 && return only(values)
    throw(ArgumentError("the store's forecasts have $(length(values)) different $(field)s ($(join(values, ", "))); " *
                        "forecast_parameters(store) lists each group"))
end

"""
    begin_time_series_update(f, store)

IS.jl's name for a bulk update: runs `f(store)` in a transaction, committed (durably) when it
returns, rolled back — every series it added or removed — when it throws. See
[`transaction`](@ref).
"""
begin_time_series_update(f::Function, s::Store) = transaction(f, s)
