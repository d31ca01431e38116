# Readers for simulation loops: one Julia array per group, bound to the reader once; every
# step is then one C call that writes straight into those arrays.

"""
    ReaderGroup

Keys of a reader that share a dtype and shape: `keys` are their positions in the reader's key
list; `values` holds the last read, one column (the last dimension) per key. The library writes
into `values` itself at every read (the array is bound to the reader), so it is refilled in
place, never reallocated.
"""
struct ReaderGroup{A<:AbstractArray}
    keys::Vector{Int}
    values::A
end

abstract type AbstractReader end

# The fields both kinds of reader have after their handle: one list, as the functions below
# treat the two kinds alike.
macro reader_fields()
    return esc(quote
        store::Store
        keys::Vector{Key}
        groups::Vector{ReaderGroup}
        info::L.tsstore_reader_info
        stamps::Union{Nothing,Vector{DateTime}}
    end)
end

"""
    StaticReader(store, resolution, keys)

Reads one timestamp of many SingleTimeSeries sharing one grid. `read_at!(reader, t)` and
`read_step!(reader, i)` (1-based) fill every group; iterating yields `(timestamp, reader)` for
every step of the grid. With one group, `values(reader)` is its array in key order:
a `Vector` of one value per key, or `(E..., n_keys)` for shaped steps.
"""
mutable struct StaticReader <: AbstractReader
    ptr::Ptr{L.tsstore_static_reader}
    @reader_fields
end

"""
    ForecastReader(store, series_type, resolution, keys)

Reads one window of many forecasts sharing a window timeline. `read_at!(reader, start)` and
`read_window!(reader, i)` (1-based) fill every group with `(E..., H, n_keys)` values
(`(E..., H, layers, n_keys)` for Probabilistic and Scenarios); iterating yields
`(window_start, reader)` for every window.
"""
mutable struct ForecastReader <: AbstractReader
    ptr::Ptr{L.tsstore_forecast_reader}
    @reader_fields
end

# The C functions of each kind of reader (the two kinds mirror each other).
reader_info(r::StaticReader, info) = L.tsstore_static_reader_info(r.ptr, info)
reader_info(r::ForecastReader, info) = L.tsstore_forecast_reader_info(r.ptr, info)
reader_group(r::StaticReader, g, info) = L.tsstore_static_reader_group(r.ptr, g, info)
reader_group(r::ForecastReader, g, info) = L.tsstore_forecast_reader_group(r.ptr, g, info)
reader_group_keys(r::StaticReader, g, dst, n) = L.tsstore_static_reader_group_keys(r.ptr, g, dst, length(dst), n)
reader_group_keys(r::ForecastReader, g, dst, n) = L.tsstore_forecast_reader_group_keys(r.ptr, g, dst, length(dst), n)
reader_bind(r::StaticReader, g, dst) = L.tsstore_static_reader_bind(r.ptr, g, dst, sizeof(dst))
reader_bind(r::ForecastReader, g, dst) = L.tsstore_forecast_reader_bind(r.ptr, g, dst, sizeof(dst))
reader_free(r::StaticReader, p) = L.tsstore_static_reader_free(p)
reader_free(r::ForecastReader, p) = L.tsstore_forecast_reader_free(p)
reader_read_at(r::StaticReader, p, ms) = L.tsstore_static_reader_read_at(p, ms)
reader_read_at(r::ForecastReader, p, ms) = L.tsstore_forecast_reader_read_at(p, ms)
reader_read_index(r::StaticReader, p, i) = L.tsstore_static_reader_read_step(p, i)
reader_read_index(r::ForecastReader, p, i) = L.tsstore_forecast_reader_read_window(p, i)

"""Fills in a new reader: its grid, and per group an array bound to the reader."""
function setup!(r::AbstractReader, layered::Bool)
    info = Ref(L.tsstore_reader_info())
    check(reader_info(r, info))
    r.info = info[]
    for g in 0:Int(r.info.n_groups)-1
        gi = Ref(L.tsstore_group_info())
        check(reader_group(r, g, gi))
        grp = gi[]
        nkeys = Int(grp.n_keys)
        idx = Vector{Int64}(undef, nkeys)
        n = Ref{Csize_t}(0)
        check(reader_group_keys(r, g, idx, n))
        # The group's store shape reversed: element dims, then steps (forecasts), layers
        # (Probabilistic, Scenarios) and keys.
        edims = reverse(Tuple(shape_of(grp.element_shape, grp.element_ndim)))
        dims = r isa StaticReader ? (edims..., nkeys) :
               (edims..., Int(grp.steps), (layered ? (Int(grp.layers),) : ())..., nkeys)
        values = Array{dtype_of(grp.dtype)}(undef, dims...)
        sizeof(values) == grp.nbytes ||
            throw(InternalError("group $g: the library's $(grp.nbytes) bytes per step are not the $(sizeof(values)) of $dims"))
        # The reader keeps the pointer: values lives in r.groups as long as the reader does.
        check(reader_bind(r, g, values))
        push!(r.groups, ReaderGroup(Int.(idx[1:Int(n[])]) .+ 1, values))
    end
    return r
end

function StaticReader(s::Store, resolution::PeriodLike, keys::AbstractVector{Key})
    h = handle(s)
    out = Ref{Ptr{L.tsstore_static_reader}}(C_NULL)
    with_lookups(Which[Which(k) for k in keys]) do which
        check(L.tsstore_static_reader_new(h, Ref(period(resolution)), which, length(which), out))
    end
    r = StaticReader(out[], s, collect(keys), ReaderGroup[], L.tsstore_reader_info(), nothing)
    finalizer(close, r)
    return setup!(r, false)
end

function ForecastReader(s::Store, series_type::SeriesType, resolution::PeriodLike, keys::AbstractVector{Key})
    h = handle(s)
    out = Ref{Ptr{L.tsstore_forecast_reader}}(C_NULL)
    with_lookups(Which[Which(k) for k in keys]) do which
        check(L.tsstore_forecast_reader_new(h, Int32(series_type), Ref(period(resolution)), which, length(which), out))
    end
    r = ForecastReader(out[], s, collect(keys), ReaderGroup[], L.tsstore_reader_info(), nothing)
    finalizer(close, r)
    return setup!(r, series_type in (PROBABILISTIC, SCENARIOS))
end

reader_handle(r::AbstractReader) = r.ptr == C_NULL ? throw(InvalidHandleError("the reader is closed")) : r.ptr

# Both kinds read by time or by 1-based position the same way: one C call, then the reader.
function read_time!(r::AbstractReader, t::DateTime)
    check(reader_read_at(r, reader_handle(r), millis(t)))
    return r
end

function read_index!(r::AbstractReader, i::Integer)
    check(reader_read_index(r, reader_handle(r), Int64(i - 1)))
    return r
end

"""Reads the step at timestamp t (a grid point: never rounded)."""
read_at!(r::StaticReader, t::DateTime) = read_time!(r, t)

"""Reads step i (1-based) of the grid: one C call, straight into the groups' arrays."""
read_step!(r::StaticReader, i::Integer) = read_index!(r, i)

"""Reads the window starting at t (a window start)."""
read_at!(r::ForecastReader, t::DateTime) = read_time!(r, t)

"""Reads window i (1-based): one C call, straight into the groups' arrays."""
read_window!(r::ForecastReader, i::Integer) = read_index!(r, i)

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

Base.length(r::AbstractReader) = Int(r.info.steps)

"""
    timestamps(reader) -> Vector{DateTime}

The timestamps of a StaticReader's grid, or the window starts of a ForecastReader, computed by
the library from the reader's first step and step period (once, then kept).
"""
function timestamps(r::AbstractReader)
    if r.stamps === nothing
        r.stamps = from_millis.(timeline(r.info.initial_ms, r.info.step_period, r.info.steps))
    end
    return r.stamps
end

function Base.iterate(r::AbstractReader, i::Int = 1)
    i > length(r) && return nothing
    read_index!(r, i)
    return (timestamps(r)[i], r), i + 1
end

"""Releases the reader (its arrays stay, with their last values); closing twice is harmless."""
function Base.close(r::AbstractReader)
    p = r.ptr
    r.ptr = typeof(p)(C_NULL)
    p == C_NULL || reader_free(r, p)
    return nothing
end

Base.isopen(r::AbstractReader) = r.ptr != C_NULL

"""Do-block forms: `StaticReader(store, res, keys) do r … end` closes the reader after."""
StaticReader(f::Function, s::Store, resolution::PeriodLike, keys::AbstractVector{Key}) =
    with_closing(f, StaticReader(s, resolution, keys))

ForecastReader(f::Function, s::Store, series_type::SeriesType, resolution::PeriodLike, keys::AbstractVector{Key}) =
    with_closing(f, ForecastReader(s, series_type, resolution, keys))
