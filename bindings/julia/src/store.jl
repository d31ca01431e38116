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
    # The size of the last read of each (name, type, part): the buffer the next such read
    # offers, so that a read by owner and name is one C call (read_series).
    sizes::Dict{Tuple{String,Int32,Symbol},Tuple{Int32,Int}}
    sizes_lock::ReentrantLock
    function Store(ptr::Ptr{L.tsstore_store}, path::AbstractString)
        s = new(ptr, String(path), Dict{Tuple{String,Int32,Symbol},Tuple{Int32,Int}}(), ReentrantLock())
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

# The do-block forms of a store's and a reader's constructors: f(x), then x closed whether
# f returned or threw.
function with_closing(f, x)
    result = try
        f(x)
    catch
        try
            close(x)
        catch  # f's error is the one to report
        end
        rethrow()
    end
    close(x)
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
store_last_error(s::Store) = read_text((buf, cap, n) -> L.tsstore_store_last_error(handle(s), buf, cap, n))

"""
What opening the store rolled back (`""` if nothing): a writer that died in the middle of a
write leaves a hot journal beside the NetCDF file, and the next writable open restores the
file from it to its last commit.
"""
store_recovered(s::Store) = read_text((buf, cap, n) -> L.tsstore_store_recovered(handle(s), buf, cap, n))

# ---- adding -------------------------------------------------------------------------------

"""One series to add, checked and converted: the Julia memory its descriptor points at."""
struct Item
    ts::TimeSeriesData
    owner_id::Int64
    owner_category::OwnerCategory
    features::FeatureArg
    arr::Array
    shape::Vector{Int64}
    strings::NTuple{4,Union{Nothing,String}}  # owner_type, name, units, ext
    stamps::Vector{Int64}
    pct::Vector{Float64}
end

function Item(ts::TimeSeriesData, owner_id::Integer, owner_type::AbstractString, owner_category::OwnerCategory,
              features, units, ext)
    arr = dense(ts.data)
    ndims(arr) == 0 && throw(ArgumentError("data must have at least one dimension"))
    dtype_code(eltype(arr))  # refuses an element type the store does not hold
    stamps = ts isa NonSequentialTimeSeries ? Int64[millis(t) for t in ts.timestamps] : Int64[]
    pct = ts isa Probabilistic ? ts.percentiles : Float64[]
    feats = feature_arg(features === nothing ? Dict{String,Any}() : features)
    strs = (cstr(owner_type), cstr(ts.name), opt_text(units), opt_text(ext))
    return Item(ts, Int64(owner_id), owner_category, feats, arr, store_shape(arr), strs, stamps, pct)
end

"""The descriptor of an item; its pointers are valid while the item is preserved."""
function descriptor(it::Item)
    ts = it.ts
    res = ts isa NonSequentialTimeSeries ? NO_PERIOD : period(ts.resolution)
    forecast = ts isa Forecast
    fp, fn = feature_fields(it.features)
    return L.tsstore_series_desc(;
        series_type = Int32(series_type(ts)), owner_id = it.owner_id, owner_category = Int32(it.owner_category),
        dtype = dtype_code(eltype(it.arr)), owner_type = ptr(it.strings[1]), name = ptr(it.strings[2]),
        initial_ms = ts isa NonSequentialTimeSeries ? 0 : millis(ts.initial_timestamp), resolution = res,
        timestamps_ms = ts isa NonSequentialTimeSeries ? pointer(it.stamps) : C_NULL,
        horizon = forecast ? period(ts.horizon) : NO_PERIOD, interval = forecast ? period(ts.interval) : NO_PERIOD,
        count = forecast ? ts.count : 0, percentiles = ts isa Probabilistic ? pointer(it.pct) : C_NULL,
        n_percentiles = length(it.pct), shape = pointer(it.shape), ndim = length(it.shape),
        data = pointer(it.arr), nbytes = sizeof(it.arr), units = ptr(it.strings[3]), ext = ptr(it.strings[4]),
        features = fp, n_features = fn)
end

"""Adds items in one C call (tsstore_add for one, tsstore_add_batch for a batch) and returns
the keys the library reports it stored."""
function add_items!(s::Store, items::Vector{Item}; batch::Bool)
    isempty(items) && return Key[]
    h = handle(s)
    stored = fill(L.tsstore_lookup(), length(items))
    GC.@preserve items begin  # every array and string the descriptors point at
        descs = L.tsstore_series_desc[descriptor(it) for it in items]
        check(batch ? L.tsstore_add_batch(h, descs, length(descs), stored) : L.tsstore_add(h, descs, stored))
    end
    return keys_from_lookups(stored)
end

"""The keys of lookups the library filled; a feature set the store interned (one array per
distinct set) is decoded once."""
function keys_from_lookups(qs::AbstractVector{L.tsstore_lookup})
    seen = Dict{Ptr{L.tsstore_feature},Dict{String,Any}}()
    feats(q) = copy(get!(() -> features_from(q.features, q.n_features), seen, q.features))
    return Key[key_from_lookup(q, feats(q)) for q in qs]
end

"""
    add_time_series!(store, ts; owner_id, owner_type, owner_category=COMPONENT,
                     features=nothing, units=nothing, ext=nothing) -> Key

Stores a series for an owner (one C call: the array is copied once, straight from `ts.data`).
Throws `DuplicateTimeSeriesError` for a stored key and `InvalidParameterError` (naming the
field) for bad input; a refused add changes nothing.
"""
function add_time_series!(s::Store, ts::TimeSeriesData; owner_id::Integer, owner_type::AbstractString,
                          owner_category::OwnerCategory = COMPONENT, features = nothing, units = nothing,
                          ext = nothing)
    return only(add_items!(s, [Item(ts, owner_id, owner_type, owner_category, features, units, ext)]; batch = false))
end

"""
    Batch

Series collected by `bulk_add(f, store)`; `add_time_series!(batch, ts; ...)` queues one.
Nothing reaches the library until the batch commits, in one call.
"""
mutable struct Batch
    store::Union{Nothing,Store}
    items::Vector{Item}
end

live(b::Batch) = b.store === nothing ? throw(InvalidHandleError("the batch was committed or discarded")) : b.store

function add_time_series!(b::Batch, ts::TimeSeriesData; owner_id::Integer, owner_type::AbstractString,
                          owner_category::OwnerCategory = COMPONENT, features = nothing, units = nothing,
                          ext = nothing)
    live(b)
    push!(b.items, Item(ts, owner_id, owner_type, owner_category, features, units, ext))
    return nothing
end

Base.length(b::Batch) = (live(b); length(b.items))

"""
    bulk_add(f, store) -> Vector{Key}

Runs f(batch), then adds everything it queued in one call, all or nothing (nothing if f throws).
"""
function bulk_add(f::Function, s::Store)
    handle(s)
    b = Batch(s, Item[])
    try
        f(b)
        return add_items!(s, b.items; batch = true)
    finally
        b.store, b.items = nothing, Item[]
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

"""A Julia array for what info describes (the store's shape reversed), for the library to fill."""
array_for(info::L.tsstore_series_info) = new_array(info.dtype, shape_of(info.shape, info.ndim))

"""The series a read returned: info describes it, arr holds its values, stamps and pct are
a NonSequentialTimeSeries' timestamps and a Probabilistic's percentiles."""
function series_of(name::AbstractString, info::L.tsstore_series_info, arr, stamps, pct)
    t = SeriesType(info.key.series_type)
    res = dates_period(info.key.resolution)
    t == SINGLE_TIME_SERIES && return SingleTimeSeries(name, from_millis(info.initial_ms), res, arr)
    t == NON_SEQUENTIAL_TIME_SERIES && return NonSequentialTimeSeries(name, from_millis.(stamps), arr)
    t0, hor, iv = from_millis(info.initial_ms), dates_period(info.horizon), dates_period(info.key.interval)
    t == PROBABILISTIC && return Probabilistic(name, t0, res, hor, iv, info.count, pct, arr)
    t == SCENARIOS && return Scenarios(name, t0, res, hor, iv, info.count, arr)
    return Deterministic(name, t0, res, hor, iv, info.count, arr)  # and DeterministicSingleTimeSeries
end

"""The extras of a read: a NonSequentialTimeSeries' timestamps in [lo, hi), a Probabilistic's
percentiles (one more call each, by the key the read returned, whose id spares a search; none
for the other types)."""
function read_extras(h, info::L.tsstore_series_info, lo, hi)
    q = Ref(info.key)
    t = info.key.series_type
    if t == L.TSSTORE_NON_SEQUENTIAL_TIME_SERIES
        stamps = Vector{Int64}(undef, info.ndim > 0 ? info.shape[1] : 0)
        n = Ref{Csize_t}(0)
        check(L.tsstore_get_timestamps(h, q, lo, hi, stamps, length(stamps), n))
        return resize!(stamps, Int(n[])), Float64[]
    elseif t == L.TSSTORE_PROBABILISTIC
        pct = Vector{Float64}(undef, info.n_layers)
        n = Ref{Csize_t}(0)
        check(L.tsstore_get_percentiles(h, q, pct, length(pct), n))
        return Int64[], resize!(pct, Int(n[]))
    end
    return Int64[], Float64[]
end

part_call(h, q, part::Symbol, lo, hi, dst, capacity, info) =
    part === :whole ? L.tsstore_get(h, q, dst, capacity, info) :
    part === :range ? L.tsstore_get_range(h, q, lo, hi, dst, capacity, info) :
                      L.tsstore_get_windows(h, q, lo, hi, dst, capacity, info)

"""The dtype and element count the last read of (name, type, part) returned, if any."""
function size_guess(s::Store, slot)
    lock(s.sizes_lock) do
        get(s.sizes, slot, nothing)
    end
end

function remember_size!(s::Store, slot, dtype::Int32, n::Int)
    lock(s.sizes_lock) do
        s.sizes[slot] = (dtype, n)
    end
end

"""
Reads what w names, whole or part: one C call, into a buffer as large as the last read of
that name, type and part returned (the usual case in a loop, where one name has one shape);
when the answer does not fit that buffer, a second call by the key the first one returned,
whose id names the series without a search. The values land in the Julia array returned.
"""
function read_series(s::Store, w::Which, part::Symbol, lo::Int64, hi::Int64)
    slot = (w.name, w.series_type, part)
    guess = size_guess(s, slot)
    guess === nothing && return read_sized(s, w, part, lo, hi, slot, nothing)
    # One dispatch on the element type, here, and the read is compiled for it: with the
    # buffer's type unknown to the compiler, every call after it dispatched at run time
    # (2.3 of a 4.9 µs get of 24 Float64).
    return read_guessed(s, w, part, lo, hi, slot, dtype_of(guess[1]), guess[2])
end

"""read_series into a Vector{T} of n elements, the size the last read of slot returned."""
function read_guessed(s::Store, w::Which, part::Symbol, lo::Int64, hi::Int64, slot, ::Type{T}, n::Int) where {T}
    h = handle(s)
    info = Ref(L.tsstore_series_info())
    buf = Vector{T}(undef, n)
    st = with_lookup(w) do q
        GC.@preserve buf part_call(h, q, part, lo, hi, pointer(buf), sizeof(buf), info)
    end
    st == L.TSSTORE_E_BUFFER_TOO_SMALL || check(st)
    i = info[]
    if st != L.TSSTORE_OK || dtype_of(i.dtype) !== T
        return read_sized(s, w, part, lo, hi, slot, i)
    end
    m = Int(i.nbytes ÷ sizeof(T))
    m == n || remember_size!(s, slot, i.dtype, m)
    return finish_read(h, w, part, lo, hi, i, resize!(buf, m))
end

"""read_series into a buffer of the size a first call found (info: nothing when there was no
first call, whose part the read then makes), by the key it returned: its id spares a search."""
function read_sized(s::Store, w::Which, part::Symbol, lo::Int64, hi::Int64, slot, found)
    h = handle(s)
    info = Ref(L.tsstore_series_info())
    if found === nothing
        st = with_lookup(q -> part_call(h, q, part, lo, hi, C_NULL, 0, info), w)
        st == L.TSSTORE_E_BUFFER_TOO_SMALL || check(st)
        found = info[]
    end
    T = dtype_of(found.dtype)
    buf = Vector{T}(undef, Int(found.nbytes ÷ sizeof(T)))
    q = Ref(found.key)
    GC.@preserve buf check(part_call(h, q, part, lo, hi, pointer(buf), sizeof(buf), info))
    i = info[]
    remember_size!(s, slot, i.dtype, length(buf))
    return finish_read(h, w, part, lo, hi, i, buf)
end

"""The series of a read whose values are in buf, shaped as info says, with its extras."""
function finish_read(h, w::Which, part::Symbol, lo::Int64, hi::Int64, i::L.tsstore_series_info, buf::Vector)
    arr = i.ndim == 1 ? buf : reshape(buf, reverse(Tuple(shape_of(i.shape, i.ndim))))
    stamps, pct = read_extras(h, i, part === :range ? lo : typemin(Int64), part === :range ? hi : typemax(Int64))
    return series_of(w.name, i, arr, stamps, pct)
end

"""
    get_time_series(store, key; start=nothing, stop=nothing)
    get_time_series(store, T, owner_id, name; owner_category=COMPONENT, resolution=nothing,
                    interval=nothing, start=nothing, stop=nothing, features...)
    get_time_series(store, owner_id, name; ...)            # T = SingleTimeSeries

Reads a series, or part of it: for a SingleTimeSeries floor(start)…ceil(stop) on its grid; for
a NonSequentialTimeSeries the timestamps in [start, stop); for a forecast the windows starting
in [start, stop] (window starts; from the first window without start, the one at start without
stop). A DeterministicSingleTimeSeries reads as a Deterministic. The library writes the values
straight into the Julia array returned.

The second form looks the series up by owner and name as InfrastructureSystems.jl users write
`get_time_series(SingleTimeSeries, component, name; features...)`: T is SingleTimeSeries,
NonSequentialTimeSeries, Deterministic, Probabilistic, Scenarios or a SeriesType
(ABSTRACT_DETERMINISTIC: either kind of deterministic forecast); resolution and interval narrow
it; the features (keyword arguments, or a `features` Dict) must be among the series'. No match is
`NotFoundError`; several are `InvalidParameterError`, the message listing them.
"""
get_time_series(s::Store, key::Key; start = nothing, stop = nothing) = read_part(s, Which(key), start, stop)

get_time_series(s::Store, T, owner_id::Integer, name::AbstractString; start = nothing, stop = nothing, kw...) =
    read_part(s, which_named(T, owner_id, name; kw...), start, stop)

get_time_series(s::Store, owner_id::Integer, name::AbstractString; kw...) =
    get_time_series(s, SingleTimeSeries, owner_id, name; kw...)

function read_part(s::Store, w::Which, start, stop)
    start === nothing && stop === nothing && return read_series(s, w, :whole, 0, 0)
    if SeriesType(w.series_type) in (DETERMINISTIC, DETERMINISTIC_SINGLE_TIME_SERIES, PROBABILISTIC, SCENARIOS,
                                     ABSTRACT_DETERMINISTIC)
        # A forecast's part is its windows starting in [start, stop]: from the first window
        # when start is not given, and just the one at start when stop is not.
        m = metadata(s, w)
        lo = millis(start === nothing ? m.initial_timestamp : start)
        hi = stop === nothing ? lo : millis(stop)
        return read_series(s, Which(m.key), :windows, lo, hi)
    end
    lo = start === nothing ? MIN_MS : millis(start)
    hi = stop === nothing ? MAX_MS : millis(stop)
    return read_series(s, w, :range, lo, hi)
end

"""Reads the forecast windows starting in [first, last] (window starts)."""
get_windows(s::Store, key::Key, first::DateTime, last::DateTime = first) =
    read_series(s, Which(key), :windows, millis(first), millis(last))

"""
    get_many(store, keys) -> Vector

Reads many whole series, one pass per packed dataset; results in key order. Two calls however
many keys (their sizes, then their values, straight into one Julia array each, by the keys the
first call returned, whose ids spare a second search), plus one per NonSequentialTimeSeries
(timestamps) and Probabilistic (percentiles).
"""
function get_many(s::Store, keys::AbstractVector{Key})
    isempty(keys) && return Any[]
    h = handle(s)
    ws = Which[Which(k) for k in keys]
    n = length(ws)
    infos = fill(L.tsstore_series_info(), n)
    return with_lookups(ws) do which
        check(L.tsstore_get_many(h, which, n, C_NULL, C_NULL, infos))
        arrays = Array[array_for(info) for info in infos]
        found = L.tsstore_lookup[info.key for info in infos]
        GC.@preserve arrays begin
            dst = Ptr{Cvoid}[pointer(a) for a in arrays]
            caps = Csize_t[sizeof(a) for a in arrays]
            check(L.tsstore_get_many(h, found, n, dst, caps, infos))
        end
        map(1:n) do i
            stamps, pct = read_extras(h, infos[i], typemin(Int64), typemax(Int64))
            series_of(ws[i].name, infos[i], arrays[i], stamps, pct)
        end
    end
end

"""
    get_timestamps(store, key; start=nothing, stop=nothing) -> Vector{DateTime}

The timestamps of a series, from the library: the steps of a SingleTimeSeries (floor(start) to
ceil(stop), as a range read returns them), the stored timestamps of a NonSequentialTimeSeries
(start <= t < stop), the window starts of a forecast.
"""
function get_timestamps(s::Store, key::Key; start = nothing, stop = nothing)
    h = handle(s)
    lo = start === nothing ? typemin(Int64) : millis(start)
    hi = stop === nothing ? typemax(Int64) : millis(stop)
    with_lookup(Which(key)) do q
        n = Ref{Csize_t}(0)
        sized(L.tsstore_get_timestamps(h, q, lo, hi, C_NULL, 0, n))
        out = Vector{Int64}(undef, n[])
        check(L.tsstore_get_timestamps(h, q, lo, hi, out, length(out), n))
        from_millis.(resize!(out, Int(n[])))
    end
end

function has(s::Store, w::Which)
    found = Ref{Int32}(0)
    h = handle(s)
    with_lookup(q -> check(L.tsstore_has(h, q, found)), w)
    return found[] != 0
end

"""
    has_time_series(store, key) -> Bool
    has_time_series(store, T, owner_id, name; owner_category, resolution, interval, features...)

Whether a series with exactly this key is stored; or, by owner and name, whether at least one
series matches (the lookup of `get_time_series`).
"""
has_time_series(s::Store, key::Key) = has(s, Which(key))
has_time_series(s::Store, T, owner_id::Integer, name::AbstractString; kw...) =
    has(s, which_named(T, owner_id, name; kw...))

function remove(s::Store, w::Which)
    h = handle(s)
    with_lookup(q -> check(L.tsstore_remove(h, q)), w)
    return nothing
end

"""
    remove_time_series!(store, key)
    remove_time_series!(store, T, owner_id, name; owner_category, resolution, interval, features...)

Removes one series (its array is freed once no other series uses it); by owner and name, the
one series the lookup names (several matching is `InvalidParameterError`).
"""
remove_time_series!(s::Store, key::Key) = remove(s, Which(key))
remove_time_series!(s::Store, T, owner_id::Integer, name::AbstractString; kw...) =
    remove(s, which_named(T, owner_id, name; kw...))

"""Runs f(filter) with a Ref{tsstore_filter} narrowed by list_keys' keyword arguments."""
function with_filter(f, owner_id, owner_category, series_type, name, name_glob, owner_type, resolution, interval,
                     features)
    nm, gl, ot, fa = opt_text(name), opt_text(name_glob), opt_text(owner_type), feature_arg(features)
    fp, fn = feature_fields(fa)
    keep = kept(fa)
    flt = L.tsstore_filter(; match_owner_id = owner_id === nothing ? 0 : 1, owner_id = something(owner_id, 0),
                           owner_category = owner_category === nothing ? L.TSSTORE_OWNER_ANY : Int32(owner_category),
                           series_type = series_type === nothing ? L.TSSTORE_ANY_TYPE : Int32(series_type),
                           name = ptr(nm), name_glob = ptr(gl), owner_type = ptr(ot), resolution = period(resolution),
                           interval = period(interval), features = fp, n_features = fn)
    return GC.@preserve nm gl ot keep f(Ref(flt))
end

"""
    list_keys(store; owner_id, owner_category, series_type, name, name_glob, owner_type,
              resolution, interval, features) -> Vector{Key}

The keys matching every given filter, in insertion order. owner_id without owner_category
matches the id under either category; name_glob is a SQLite GLOB ("max_*"); features match
as a subset.
"""
list_keys(s::Store; kw...) = listed(info -> key_from_lookup(info.key), s, Key; kw...)

"""
    list_metadata(store; filters...) -> Vector{NamedTuple}

The record ([`get_metadata`](@ref)) of every series `list_keys(store; filters...)` selects,
read with the listing: one C call.
"""
list_metadata(s::Store; kw...) = listed(metadata_of, s, NamedTuple; kw...)

function listed(f_entry, s::Store, ::Type{T}; owner_id = nothing, owner_category = nothing, series_type = nothing,
                name = nothing, name_glob = nothing, owner_type = nothing, resolution = nothing, interval = nothing,
                features = nothing) where {T}
    h = handle(s)
    return with_filter(owner_id, owner_category, series_type, name, name_glob, owner_type, resolution, interval,
                       features) do f
        out = Ref{Ptr{L.tsstore_keys}}(C_NULL)
        check(L.tsstore_list_keys(h, f, out))
        infos_from_list(out[], f_entry, T)
    end
end

"""
    remove_time_series_where!(store; filters...) -> Int

Removes every series `list_keys(store; filters...)` selects, all or nothing, and returns
how many; with no filter at all it removes every series.
"""
function remove_time_series_where!(s::Store; owner_id = nothing, owner_category = nothing, series_type = nothing,
                             name = nothing, name_glob = nothing, owner_type = nothing, resolution = nothing,
                             interval = nothing, features = nothing)
    h = handle(s)
    return with_filter(owner_id, owner_category, series_type, name, name_glob, owner_type, resolution, interval,
                       features) do f
        removed = Ref{Int64}(0)
        check(L.tsstore_remove_where(h, f, removed))
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
    cat = owner_category === nothing ? L.TSSTORE_OWNER_ANY : Int32(owner_category)
    check(L.tsstore_transform_single_time_series(handle(s), Ref(period(horizon)), Ref(period(interval)), cat,
                                                 Ref(period(resolution)), added))
    return Int(added[])
end

"""
    compact!(store; rewrite = false)

Commits pending writes and deletes unreferenced feature sets; reports what is reclaimable.
With `rewrite = true` it then writes the live series into a new pair of files and replaces
the old pair with it atomically, giving back the space of removed series; the store stays
open on the new pair.
"""
function compact!(s::Store; rewrite::Bool = false)
    rep = Ref(L.tsstore_compact_report())
    check(rewrite ? L.tsstore_compact_rewrite(handle(s), rep) : L.tsstore_compact(handle(s), rep))
    r = rep[]
    return (slots_reclaimed = Int(r.slots_reclaimed), datasets_dropped = Int(r.datasets_dropped),
            feature_sets_reclaimed = Int(r.feature_sets_reclaimed), dead_standalone = Int(r.dead_standalone))
end

"""
Rehashes every array and checks every row: `(arrays_checked, problems::Vector{String})` and
the count of each kind of problem (hash_mismatches, unreadable, dangling_rows,
shape_mismatches). No problems: the store is sound.
"""
function verify_integrity(s::Store)
    rep = Ref(L.tsstore_integrity_report())
    out = Ref{Ptr{L.tsstore_strings}}(C_NULL)
    check(L.tsstore_verify_integrity(handle(s), rep, out))
    problems = strings_from_list(out[])
    r = rep[]
    return (arrays_checked = Int(r.arrays_checked), problems = problems, hash_mismatches = Int(r.hash_mismatches),
            unreadable = Int(r.unreadable), dangling_rows = Int(r.dangling_rows),
            shape_mismatches = Int(r.shape_mismatches))
end

"""The strings of a C string list, which this frees."""
function strings_from_list(list::Ptr{L.tsstore_strings})
    list == C_NULL && return String[]
    try
        n = Ref{Csize_t}(0)
        check(L.tsstore_strings_len(list, n))
        p = Ref{Ptr{Cchar}}(C_NULL)
        out = Vector{String}(undef, n[])
        for i in eachindex(out)
            check(L.tsstore_strings_get(list, i - 1, p))
            out[i] = text_field(p[])
        end
        return out
    finally
        L.tsstore_strings_free(list)
    end
end

"""Whether, at every resolution, all SingleTimeSeries share one grid."""
function check_static_consistency(s::Store)
    ok = Ref{Int32}(0)
    check(L.tsstore_check_static_consistency(handle(s), ok))
    return ok[] != 0
end
