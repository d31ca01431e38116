# Readers for simulation loops: Julia arrays allocated once, filled in place by every read.

"""
    ReaderGroup

Keys of a reader that share a dtype and shape: `keys` are their positions in the reader's key
list; `values` holds the last read, one column (the last dimension) per key, refilled in place.
"""
struct ReaderGroup{A<:AbstractArray}
    keys::Vector{Int}
    values::A
end

abstract type AbstractReader end

"""
    StaticReader(store, resolution, keys)

Reads one timestamp of many SingleTimeSeries sharing one grid. `read!(reader, t)` and
`read_step!(reader, i)` (1-based) fill every group; iterating yields `(timestamp, reader)` for
every step of the grid. With one group, `values(reader)` is its array in key order:
a `Vector` of one value per key, or `(E..., n_keys)` for shaped steps.
"""
mutable struct StaticReader <: AbstractReader
    ptr::Ptr{L.tsstore_static_reader}
    store::Store
    keys::Vector{Key}
    groups::Vector{ReaderGroup}
    initial::DateTime
    length::Int
end

"""
    ForecastReader(store, series_type, resolution, keys)

Reads one window of many forecasts sharing a window timeline. `read!(reader, start)` and
`read_window!(reader, i)` (1-based) fill every group with `(E..., H, n_keys)` values
(`(E..., H, layers, n_keys)` for Probabilistic and Scenarios); iterating yields
`(window_start, reader)` for every window.
"""
mutable struct ForecastReader <: AbstractReader
    ptr::Ptr{L.tsstore_forecast_reader}
    store::Store
    keys::Vector{Key}
    groups::Vector{ReaderGroup}
    initial::DateTime
    count::Int
    interval::Union{Nothing,AnyPeriod}
end

function key_handles(f, keys::AbstractVector{Key})
    hs = Ptr{L.tsstore_key}[]
    try
        for k in keys
            r = Ref{Ptr{L.tsstore_key}}(C_NULL)
            check(L.tsstore_key_new(k.owner_id, Int32(k.owner_category), Int32(k.series_type), cstr(k.name),
                                    k.resolution === nothing ? cstr(nothing) : iso(k.resolution),
                                    k.interval === nothing ? cstr(nothing) : iso(k.interval),
                                    features_json(k.features), r))
            push!(hs, r[])
        end
        return f(hs)
    finally
        foreach(L.tsstore_key_free, hs)
    end
end

function group_keys(fn, ptr, g, n)
    idx = Vector{Int64}(undef, n)
    needed = Ref{Csize_t}(0)
    check(fn(ptr, g, idx, n, needed))
    return Int.(idx) .+ 1
end

function StaticReader(s::Store, resolution::PeriodLike, keys::AbstractVector{Key})
    out = Ref{Ptr{L.tsstore_static_reader}}(C_NULL)
    key_handles(hs -> check(L.tsstore_static_reader_new(handle(s), iso(resolution), hs, length(hs), out)), keys)
    r = StaticReader(out[], s, collect(keys), ReaderGroup[], DateTime(1970), 0)
    finalizer(close, r)
    t0, n = Ref{Int64}(0), Ref{Int64}(0)
    check(L.tsstore_static_reader_grid(r.ptr, t0, n))
    r.initial, r.length = from_millis(t0[]), Int(n[])
    ng = Ref{Csize_t}(0)
    check(L.tsstore_static_reader_groups(r.ptr, ng))
    for g in 0:Int(ng[])-1
        dtype, nkeys, ndim = Ref{Int32}(0), Ref{Csize_t}(0), Ref{Csize_t}(0)
        check(L.tsstore_static_reader_group_info(r.ptr, g, dtype, nkeys, Ptr{Int64}(C_NULL), 0, ndim))
        shape = Vector{Int64}(undef, ndim[])
        check(L.tsstore_static_reader_group_info(r.ptr, g, dtype, nkeys, shape, length(shape), ndim))
        values = Array{DTYPES[dtype[]+1]}(undef, reverse(Tuple(shape))..., Int(nkeys[]))
        push!(r.groups, ReaderGroup(group_keys(L.tsstore_static_reader_group_keys, r.ptr, g, Int(nkeys[])), values))
    end
    return r
end

function ForecastReader(s::Store, series_type::SeriesType, resolution::PeriodLike, keys::AbstractVector{Key})
    out = Ref{Ptr{L.tsstore_forecast_reader}}(C_NULL)
    key_handles(keys) do hs
        check(L.tsstore_forecast_reader_new(handle(s), Int32(series_type), iso(resolution), hs, length(hs), out))
    end
    interval = isempty(keys) ? nothing : first(keys).interval
    r = ForecastReader(out[], s, collect(keys), ReaderGroup[], DateTime(1970), 0, interval)
    finalizer(close, r)
    t0, n = Ref{Int64}(0), Ref{Int64}(0)
    check(L.tsstore_forecast_reader_grid(r.ptr, t0, n))
    r.initial, r.count = from_millis(t0[]), Int(n[])
    layered = series_type in (PROBABILISTIC, SCENARIOS)
    ng = Ref{Csize_t}(0)
    check(L.tsstore_forecast_reader_groups(r.ptr, ng))
    for g in 0:Int(ng[])-1
        dtype, nkeys, layers, steps, ndim = Ref{Int32}(0), Ref{Csize_t}(0), Ref{Int64}(0), Ref{Int64}(0), Ref{Csize_t}(0)
        check(L.tsstore_forecast_reader_group_info(r.ptr, g, dtype, nkeys, layers, steps, Ptr{Int64}(C_NULL), 0, ndim))
        shape = Vector{Int64}(undef, ndim[])
        check(L.tsstore_forecast_reader_group_info(r.ptr, g, dtype, nkeys, layers, steps, shape, length(shape), ndim))
        dims = (reverse(Tuple(shape))..., Int(steps[]), (layered ? (Int(layers[]),) : ())..., Int(nkeys[]))
        values = Array{DTYPES[dtype[]+1]}(undef, dims...)
        push!(r.groups, ReaderGroup(group_keys(L.tsstore_forecast_reader_group_keys, r.ptr, g, Int(nkeys[])), values))
    end
    return r
end

reader_handle(r::AbstractReader) = r.ptr == C_NULL ? throw(InvalidHandleError("the reader is closed")) : r.ptr

fill_fn(::StaticReader) = L.tsstore_static_reader_group_values
fill_fn(::ForecastReader) = L.tsstore_forecast_reader_group_values

function fill_groups!(r::AbstractReader)
    needed = Ref{Csize_t}(0)
    for (g, grp) in enumerate(r.groups)
        check(fill_fn(r)(reader_handle(r), g - 1, grp.values, sizeof(grp.values), needed))
    end
    return r
end

"""Reads the step at timestamp t (a grid point: never rounded)."""
function Base.read!(r::StaticReader, t::DateTime)
    check(L.tsstore_static_reader_read(reader_handle(r), millis(t)))
    return fill_groups!(r)
end

"""Reads step i (1-based) of the grid."""
function read_step!(r::StaticReader, i::Integer)
    check(L.tsstore_static_reader_read_step(reader_handle(r), Int64(i - 1)))
    return fill_groups!(r)
end

"""Reads the window starting at t (a window start)."""
function Base.read!(r::ForecastReader, t::DateTime)
    check(L.tsstore_forecast_reader_read(reader_handle(r), millis(t)))
    return fill_groups!(r)
end

"""Reads window i (1-based)."""
function read_window!(r::ForecastReader, i::Integer)
    check(L.tsstore_forecast_reader_read_window(reader_handle(r), Int64(i - 1)))
    return fill_groups!(r)
end

"""The last read of a one-group reader, in key order (the group's own array when its keys are
already in order; otherwise a permuted copy)."""
function Base.values(r::AbstractReader)
    length(r.groups) == 1 || throw(ArgumentError("the keys fall into $(length(r.groups)) groups (dtype / shape); read r.groups"))
    g = r.groups[1]
    g.keys == 1:length(r.keys) && return g.values
    out = similar(g.values)
    selectdim(out, ndims(out), g.keys) .= g.values
    return out
end

Base.length(r::StaticReader) = r.length
Base.length(r::ForecastReader) = r.count

"""The timestamps of a StaticReader's grid, or the window starts of a ForecastReader."""
function timestamps(r::StaticReader)
    keys_res = first(r.keys).resolution
    return [step_time(r.initial, keys_res, i - 1) for i in 1:r.length]
end
timestamps(r::ForecastReader) = [step_time(r.initial, r.interval, i - 1) for i in 1:r.count]

step_time(t0::DateTime, p::Period, i) = t0 + i * p
step_time(t0::DateTime, p::Dates.CompoundPeriod, i) = t0 + Dates.CompoundPeriod([i * q for q in p.periods])

function Base.iterate(r::StaticReader, i::Int = 1)
    i > r.length && return nothing
    read_step!(r, i)
    return (step_time(r.initial, first(r.keys).resolution, i - 1), r), i + 1
end

function Base.iterate(r::ForecastReader, i::Int = 1)
    i > r.count && return nothing
    read_window!(r, i)
    return (step_time(r.initial, r.interval, i - 1), r), i + 1
end

"""Releases the reader; closing twice is harmless."""
function Base.close(r::StaticReader)
    p, r.ptr = r.ptr, Ptr{L.tsstore_static_reader}(C_NULL)
    p == C_NULL || L.tsstore_static_reader_free(p)
    return nothing
end

function Base.close(r::ForecastReader)
    p, r.ptr = r.ptr, Ptr{L.tsstore_forecast_reader}(C_NULL)
    p == C_NULL || L.tsstore_forecast_reader_free(p)
    return nothing
end

Base.isopen(r::AbstractReader) = r.ptr != C_NULL

"""Do-block forms: `StaticReader(store, res, keys) do r … end` closes the reader after."""
function StaticReader(f::Function, s::Store, resolution::PeriodLike, keys::AbstractVector{Key})
    r = StaticReader(s, resolution, keys)
    try
        return f(r)
    finally
        close(r)
    end
end

function ForecastReader(f::Function, s::Store, series_type::SeriesType, resolution::PeriodLike,
                        keys::AbstractVector{Key})
    r = ForecastReader(s, series_type, resolution, keys)
    try
        return f(r)
    finally
        close(r)
    end
end
