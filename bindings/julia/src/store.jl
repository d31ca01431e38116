# The store: opening, adding, reading, listing, transactions and maintenance.

"""
    Store

An open store: `<name>.nc` (NetCDF4 arrays) and `<name>.nc.sqlite` (the catalog). Made by
`TsStore.create`, `TsStore.open` or `TsStore.in_memory`; `close(store)` (harmless twice), the
do-block forms or the finalizer release it. Tasks and threads may share a store: the library
serialises calls on it. A closed store throws `InvalidHandleError`.
"""
mutable struct Store
    ptr::Ptr{L.tsstore_store}
    path::String
    function Store(ptr::Ptr{L.tsstore_store}, path::AbstractString)
        s = new(ptr, String(path))
        finalizer(s) do x
            p, x.ptr = x.ptr, Ptr{L.tsstore_store}(C_NULL)
            p == C_NULL || L.tsstore_close(p)
        end
        return s
    end
end

function handle(s::Store)
    s.ptr == C_NULL && throw(InvalidHandleError("the store $(s.path) is closed"))
    return s.ptr
end

Base.isopen(s::Store) = s.ptr != C_NULL
Base.show(io::IO, s::Store) = print(io, "TsStore.Store(\"", s.path, "\"", isopen(s) ? "" : ", closed", ")")

"""Commits pending writes and closes the store; closing twice is harmless."""
function Base.close(s::Store)
    p, s.ptr = s.ptr, Ptr{L.tsstore_store}(C_NULL)
    p == C_NULL || check(L.tsstore_close(p))
    return nothing
end

function with_closing(f, s::Store)
    result = try
        f(s)
    catch
        try
            close(s)
        catch  # f's error is the one to report
        end
        rethrow()
    end
    close(s)
    return result
end

"""
    TsStore.create(path; compression="deflate:3:shuffle") -> Store
    TsStore.create(f, path; ...)

Creates a new store (neither file may exist). compression: "none", "deflate:N:shuffle" or
"deflate:N:noshuffle" (N 0–9). The do-block form closes the store when f returns or throws.
"""
function create(path::AbstractString; compression::AbstractString = "deflate:3:shuffle")
    out = Ref{Ptr{L.tsstore_store}}(C_NULL)
    check(L.tsstore_create(cstr(path), cstr(compression), out))
    return Store(out[], path)
end
create(f::Function, path::AbstractString; kw...) = with_closing(f, create(path; kw...))

"""
    TsStore.open(path; read_only=false) -> Store
    TsStore.open(f, path; read_only=false)

Opens an existing store; read_only needs no write permission and refuses writes.
"""
function open(path::AbstractString; read_only::Bool = false)
    out = Ref{Ptr{L.tsstore_store}}(C_NULL)
    check(L.tsstore_open(cstr(path), Int32(read_only), out))
    return Store(out[], path)
end
open(f::Function, path::AbstractString; kw...) = with_closing(f, open(path; kw...))

"""A store in memory; `persist(store, path)` writes it out."""
function in_memory(; compression::AbstractString = "deflate:3:shuffle")
    out = Ref{Ptr{L.tsstore_store}}(C_NULL)
    check(L.tsstore_open_in_memory(cstr(compression), out))
    return Store(out[], ":memory:")
end
in_memory(f::Function; kw...) = with_closing(f, in_memory(; kw...))

"""Makes every write so far durable (outside a transaction)."""
flush!(s::Store) = check(L.tsstore_flush(handle(s)))

"""Writes an in-memory store to path and path * ".sqlite"."""
persist(s::Store, path::AbstractString) = check(L.tsstore_persist(handle(s), cstr(path)))

"""How many bytes of added arrays the store holds before writing them out (default 256 MiB)."""
set_write_buffer!(s::Store, nbytes::Integer) = check(L.tsstore_set_write_buffer(handle(s), Int64(nbytes)))

"""How many bytes of decoded columns the store keeps for one-at-a-time reads (default 64 MiB)."""
set_read_cache!(s::Store, nbytes::Integer) = check(L.tsstore_set_read_cache(handle(s), Int64(nbytes)))

"""The message of the last failed call on this store."""
store_last_error(s::Store) = read_text(L.tsstore_store_last_error, handle(s))

"""
What opening the store rolled back (`""` if nothing): a writer that died in the middle of a
write leaves a hot journal beside the NetCDF file, and the next writable open restores the
file from it to its last commit.
"""
store_recovered(s::Store) = read_text(L.tsstore_store_recovered, handle(s))

# ---- adding -------------------------------------------------------------------------------

# The arguments every add function shares after its series-specific ones.
function add_args(ts::TimeSeriesData)
    arr = dense(ts.data)
    ndims(arr) == 0 && throw(ArgumentError("data must have at least one dimension"))
    return arr, dtype_code(eltype(arr)), store_shape(arr)
end

# Calls the add (or batch-add) function of ts's type; `out` is the key out-parameter or nothing.
function call_add(fns, target, ts::TimeSeriesData, owner_id, owner_type, owner_category, features, units, ext, out)
    arr, dtype, shape = add_args(ts)
    tail = (dtype, shape, length(shape), arr, sizeof(arr), features_json(features), cstr(units), cstr(ext))
    extra = out === nothing ? () : (out,)
    head = (target, Int64(owner_id), cstr(owner_type), Int32(owner_category), cstr(ts.name))
    # (ccall keeps every array argument alive for the duration of the call.)
    if ts isa SingleTimeSeries
        return fns[1](head..., millis(ts.initial_timestamp), iso(ts.resolution), tail..., extra...)
    elseif ts isa NonSequentialTimeSeries
        stamps = Int64[millis(t) for t in ts.timestamps]
        return fns[2](head..., stamps, length(stamps), tail..., extra...)
    else
        pct = ts isa Probabilistic ? ts.percentiles : Float64[]
        return fns[3](head..., Int32(series_type(ts)), millis(ts.initial_timestamp), iso(ts.resolution),
                      iso(ts.horizon), iso(ts.interval), Int64(ts.count), pct, length(pct), tail..., extra...)
    end
end

const ADD_FUNCTIONS = (L.tsstore_add_single, L.tsstore_add_nonsequential, L.tsstore_add_forecast)
const BATCH_FUNCTIONS = (L.tsstore_batch_add_single, L.tsstore_batch_add_nonsequential, L.tsstore_batch_add_forecast)

"""
    add_time_series!(store, ts; owner_id, owner_type, owner_category=COMPONENT,
                     features=nothing, units=nothing, ext=nothing) -> Key

Stores a series for an owner. Throws `DuplicateTimeSeriesError` for a stored key and
`InvalidParameterError` (naming the field) for bad input; a refused add changes nothing.
"""
function add_time_series!(s::Store, ts::TimeSeriesData; owner_id::Integer, owner_type::AbstractString,
                          owner_category::OwnerCategory = COMPONENT, features = nothing, units = nothing,
                          ext = nothing)
    out = Ref{Ptr{L.tsstore_key}}(C_NULL)
    check(call_add(ADD_FUNCTIONS, handle(s), ts, owner_id, owner_type, owner_category, features, units, ext, out))
    try
        return key_from_handle(out[])
    finally
        L.tsstore_key_free(out[])
    end
end

"""
    Batch

Series collected by `bulk_add(f, store)`; `add_time_series!(batch, ts; ...)` queues one.
"""
mutable struct Batch
    ptr::Ptr{L.tsstore_batch}
    store::Store
end

function add_time_series!(b::Batch, ts::TimeSeriesData; owner_id::Integer, owner_type::AbstractString,
                          owner_category::OwnerCategory = COMPONENT, features = nothing, units = nothing,
                          ext = nothing)
    b.ptr == C_NULL && throw(InvalidHandleError("the batch was committed or discarded"))
    check(call_add(BATCH_FUNCTIONS, b.ptr, ts, owner_id, owner_type, owner_category, features, units, ext, nothing))
    return nothing
end

function Base.length(b::Batch)
    n = Ref{Csize_t}(0)
    check(L.tsstore_batch_len(b.ptr, n))
    return Int(n[])
end

"""
    bulk_add(f, store) -> Vector{Key}

Runs f(batch), then adds everything it queued, all or nothing (nothing if f throws).
"""
function bulk_add(f::Function, s::Store)
    out = Ref{Ptr{L.tsstore_batch}}(C_NULL)
    check(L.tsstore_batch_new(handle(s), out))
    b = Batch(out[], s)
    try
        f(b)
        keys = Ref{Ptr{L.tsstore_keys}}(C_NULL)
        check(L.tsstore_batch_commit(b.ptr, keys))
        return keys_from_list(keys[])
    finally
        L.tsstore_batch_free(b.ptr)
        b.ptr = C_NULL
    end
end

"""
    add_time_series_bulk!(store, items) -> Vector{Key}

Adds many series at once, all or nothing: each item a NamedTuple of add_time_series!'s
arguments, `(ts=…, owner_id=…, owner_type=…, …)`.
"""
function add_time_series_bulk!(s::Store, items)
    return bulk_add(s) do b
        for it in items
            kw = Base.structdiff(it, NamedTuple{(:ts,)})
            add_time_series!(b, it.ts; kw...)
        end
    end
end

# ---- reading ------------------------------------------------------------------------------

"""A series handle's array as a Julia array, filled in place by the library (no copy)."""
function array_from_handle(h::Ptr{L.tsstore_series}, dtype::Integer)
    ndim = Ref{Csize_t}(0)
    check(L.tsstore_series_shape(h, Ptr{Int64}(C_NULL), 0, ndim))
    shape = Vector{Int64}(undef, ndim[])
    check(L.tsstore_series_shape(h, shape, length(shape), ndim))
    arr = Array{DTYPES[dtype+1]}(undef, reverse(Tuple(shape))...)
    needed = Ref{Csize_t}(0)
    check(L.tsstore_series_data(h, arr, sizeof(arr), needed))
    return arr
end

function filled_vector(f, h, ::Type{T}) where {T}
    n = Ref{Csize_t}(0)
    check(f(h, Ptr{T}(C_NULL), 0, n))
    v = Vector{T}(undef, n[])
    check(f(h, v, length(v), n))
    return v
end

"""The series a C series handle holds (a bare array for get_array)."""
function series_from_handle(h::Ptr{L.tsstore_series}, name::AbstractString)
    typ, dtype, ndim, initial, count = Ref{Int32}(0), Ref{Int32}(0), Ref{Csize_t}(0), Ref{Int64}(0), Ref{Int64}(0)
    check(L.tsstore_series_info(h, typ, dtype, ndim, initial, count))
    arr = array_from_handle(h, dtype[])
    typ[] == -1 && return arr
    t = SeriesType(typ[])
    if t == NON_SEQUENTIAL_TIME_SERIES  # it has no resolution ("")
        stamps = filled_vector(L.tsstore_series_timestamps, h, Int64)
        return NonSequentialTimeSeries(name, from_millis.(stamps), arr)
    end
    res = parse_period(read_text(L.tsstore_series_resolution, h))
    t == SINGLE_TIME_SERIES && return SingleTimeSeries(name, from_millis(initial[]), res, arr)
    t0 = from_millis(initial[])
    hor = parse_period(read_text(L.tsstore_series_horizon, h))
    iv = parse_period(read_text(L.tsstore_series_interval, h))
    if t == PROBABILISTIC
        pct = filled_vector(L.tsstore_series_percentiles, h, Float64)
        return Probabilistic(name, t0, res, hor, iv, count[], pct, arr)
    end
    t == SCENARIOS && return Scenarios(name, t0, res, hor, iv, count[], arr)
    return Deterministic(name, t0, res, hor, iv, count[], arr)
end

function take_series(out::Ref{Ptr{L.tsstore_series}}, name)
    try
        return series_from_handle(out[], name)
    finally
        L.tsstore_series_free(out[])
    end
end

# RFC 3339 bounds the store's timestamps (format-details §5): an open end of a range.
const MIN_MS = millis(DateTime(1, 1, 1))
const MAX_MS = millis(DateTime(9999, 12, 31, 23, 59, 59, 999))

"""
    get_time_series(store, key; start=nothing, stop=nothing)

Reads a series, or part of a static one (SingleTimeSeries: floor(start)…ceil(stop) on its grid;
NonSequential: timestamps in [start, stop)). A DeterministicSingleTimeSeries reads as a
Deterministic. Arrays land in Julia arrays the library fills, with no copy.
"""
function get_time_series(s::Store, key::Key; start = nothing, stop = nothing)
    out = Ref{Ptr{L.tsstore_series}}(C_NULL)
    with_key(key) do kh
        if start === nothing && stop === nothing
            check(L.tsstore_get(handle(s), kh, out))
        else
            lo = start === nothing ? MIN_MS : millis(start)
            hi = stop === nothing ? MAX_MS : millis(stop)
            check(L.tsstore_get_range(handle(s), kh, lo, hi, out))
        end
    end
    return take_series(out, key.name)
end

"""Reads the forecast windows starting in [first, last] (window starts)."""
function get_windows(s::Store, key::Key, first::DateTime, last::DateTime = first)
    out = Ref{Ptr{L.tsstore_series}}(C_NULL)
    with_key(kh -> check(L.tsstore_get_windows(handle(s), kh, millis(first), millis(last), out)), key)
    return take_series(out, key.name)
end

"""Reads many whole series, one pass per packed dataset; results in key order."""
function get_time_series_many(s::Store, keys::AbstractVector{Key})
    handles = Vector{Ptr{L.tsstore_key}}(undef, length(keys))
    made = 0
    outs = fill(Ptr{L.tsstore_series}(C_NULL), max(length(keys), 1))
    try
        for (i, k) in enumerate(keys)
            r = Ref{Ptr{L.tsstore_key}}(C_NULL)
            check(L.tsstore_key_new(k.owner_id, Int32(k.owner_category), Int32(k.series_type), cstr(k.name),
                                    k.resolution === nothing ? cstr(nothing) : iso(k.resolution),
                                    k.interval === nothing ? cstr(nothing) : iso(k.interval),
                                    features_json(k.features), r))
            handles[i] = r[]
            made = i
        end
        check(L.tsstore_get_many(handle(s), handles, length(keys), outs))
    finally
        foreach(i -> L.tsstore_key_free(handles[i]), 1:made)
    end
    result = Vector{Any}(undef, length(keys))
    try
        for i in eachindex(keys)
            result[i] = series_from_handle(outs[i], keys[i].name)
        end
    finally
        foreach(L.tsstore_series_free, outs)
    end
    return result
end

"""Whether a series with exactly this key is stored."""
function has_time_series(s::Store, key::Key)
    found = Ref{Int32}(0)
    with_key(kh -> check(L.tsstore_has(handle(s), kh, found)), key)
    return found[] != 0
end

"""Removes one series (its array is freed once no other series uses it)."""
remove_time_series!(s::Store, key::Key) = with_key(kh -> check(L.tsstore_remove(handle(s), kh)), key)

# Runs f(filter) on a new filter narrowed by the keyword arguments of list_keys, then frees it.
function with_filter(f, owner_id, owner_category, series_type, name, name_glob, owner_type, resolution,
                     interval, features)
    fout = Ref{Ptr{L.tsstore_filter}}(C_NULL)
    check(L.tsstore_filter_new(fout))
    h = fout[]
    try
        if owner_id !== nothing
            check(L.tsstore_filter_owner(h, Int64(owner_id), owner_category === nothing ? Int32(-1) : Int32(owner_category)))
        elseif owner_category !== nothing
            check(L.tsstore_filter_owner_category(h, Int32(owner_category)))
        end
        series_type === nothing || check(L.tsstore_filter_series_type(h, Int32(series_type)))
        name === nothing || check(L.tsstore_filter_name(h, cstr(name)))
        name_glob === nothing || check(L.tsstore_filter_name_glob(h, cstr(name_glob)))
        owner_type === nothing || check(L.tsstore_filter_owner_type(h, cstr(owner_type)))
        resolution === nothing || check(L.tsstore_filter_resolution(h, iso(resolution)))
        interval === nothing || check(L.tsstore_filter_interval(h, iso(interval)))
        (features === nothing || isempty(features)) || check(L.tsstore_filter_features(h, features_json(features)))
        return f(h)
    finally
        L.tsstore_filter_free(h)
    end
end

"""
    list_keys(store; owner_id, owner_category, series_type, name, name_glob, owner_type,
              resolution, interval, features) -> Vector{Key}

The keys matching every given filter, in insertion order. owner_id without owner_category
matches the id under either category; name_glob is a SQLite GLOB ("max_*").
"""
function list_keys(s::Store; owner_id = nothing, owner_category = nothing, series_type = nothing, name = nothing,
                   name_glob = nothing, owner_type = nothing, resolution = nothing, interval = nothing,
                   features = nothing)
    return with_filter(owner_id, owner_category, series_type, name, name_glob, owner_type, resolution, interval,
                       features) do f
        out = Ref{Ptr{L.tsstore_keys}}(C_NULL)
        check(L.tsstore_list_keys_where(handle(s), f, out))
        keys_from_list(out[])
    end
end

"""
    remove_time_series!(store; filters...) -> Int

Removes every series `list_keys(store; filters...)` selects, all or nothing, and returns
how many; with no filter at all it removes every series.
"""
function remove_time_series!(s::Store; owner_id = nothing, owner_category = nothing, series_type = nothing,
                             name = nothing, name_glob = nothing, owner_type = nothing, resolution = nothing,
                             interval = nothing, features = nothing)
    return with_filter(owner_id, owner_category, series_type, name, name_glob, owner_type, resolution, interval,
                       features) do f
        removed = Ref{Int64}(0)
        check(L.tsstore_remove_where(handle(s), f, removed))
        Int(removed[])
    end
end

# ---- transactions, transforms, maintenance -----------------------------------------------

"""
    transaction(f, store)

Runs f(store) in a transaction: committed when f returns (durably when outermost), rolled
back — rows, arrays and removals — when it throws. Nests.
"""
function transaction(f::Function, s::Store)
    h = handle(s)
    check(L.tsstore_begin(h))
    local result
    try
        result = f(s)
    catch
        isopen(s) && L.tsstore_rollback(h)
        rethrow()
    end
    check(L.tsstore_commit(h))
    return result
end

"""
    transform_single_time_series!(store, horizon, interval; owner_category=nothing, resolution=nothing) -> Int

Derives DeterministicSingleTimeSeries views of the stored SingleTimeSeries, all or nothing;
returns how many were added (0 when run again with the same horizon).
"""
function transform_single_time_series!(s::Store, horizon::PeriodLike, interval::PeriodLike;
                                       owner_category = nothing, resolution = nothing)
    added = Ref{Int64}(0)
    check(L.tsstore_transform_single_time_series(handle(s), iso(horizon), iso(interval),
                                                 owner_category === nothing ? Int32(-1) : Int32(owner_category),
                                                 resolution === nothing ? cstr(nothing) : iso(resolution), added))
    return Int(added[])
end

"""Commits pending writes and deletes unreferenced feature sets; reports what is reclaimable."""
function compact!(s::Store)
    v = [Ref{Int64}(0) for _ in 1:4]
    check(L.tsstore_compact(handle(s), v...))
    return (slots_reclaimed = v[1][], datasets_dropped = v[2][], feature_sets_reclaimed = v[3][],
            dead_standalone = v[4][])
end

"""Rehashes every array and checks every row: `(arrays_checked, problems::Vector{String})`."""
function verify_integrity(s::Store)
    checked, problems, needed = Ref{Int64}(0), Ref{Int64}(0), Ref{Csize_t}(0)
    cap = 1 << 20  # asked again, the call would redo the whole check
    while true
        buf = Vector{UInt8}(undef, cap)
        status = L.tsstore_verify_integrity(handle(s), checked, problems, buf, cap, needed)
        if status == status_code(BufferTooSmallError)
            cap = 2 * Int(needed[])
            continue
        end
        check(status)
        text = String(buf[1:max(needed[], 1)-1])
        return (arrays_checked = Int(checked[]), problems = filter(!isempty, split(text, '\n')))
    end
end

status_code(T) = status(T)

"""Whether, at every resolution, all SingleTimeSeries share one grid."""
function check_static_consistency(s::Store)
    ok = Ref{Int32}(0)
    check(L.tsstore_check_static_consistency(handle(s), ok))
    return ok[] != 0
end
