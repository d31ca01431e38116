# Associations, queries, summaries and owner moves.

const SUPPLEMENTAL, PARENT_CHILD = L.TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, L.TSSTORE_PARENT_CHILD_ASSOCIATIONS

"""A NULL id list (matches everything) or the ids (an empty list matches nothing)."""
id_list(::Nothing) = (Ptr{Int64}(C_NULL), 0)
function id_list(ids)
    v = Int64[ids...]
    return (isempty(v) ? Int64[0] : v, length(v))  # non-NULL even when empty
end

function add_associations!(s::Store, table::Int32, rows)
    rows = collect(rows)
    h = handle(s)
    types = [(cstr(r[2]::AbstractString), cstr(r[4]::AbstractString)) for r in rows]
    GC.@preserve types begin
        arr = L.tsstore_association[L.tsstore_association(; a_id = Int64(r[1]), a_type = ptr(t[1]), b_id = Int64(r[3]),
                                                          b_type = ptr(t[2])) for (r, t) in zip(rows, types)]
        check(L.tsstore_add_associations(h, table, arr, length(arr)))
    end
    return nothing
end

"""Attaches attributes to components, all or nothing: rows of (component_id, component_type,
attribute_id, attribute_type). A stored pair is DuplicateAssociationError."""
add_supplemental_attribute_associations!(s::Store, rows) = add_associations!(s, SUPPLEMENTAL, rows)

"""Adds directed edges, all or nothing: rows of (parent_id, parent_type, child_id, child_type)."""
add_parent_child_associations!(s::Store, rows) = add_associations!(s, PARENT_CHILD, rows)

function has_association(s::Store, table::Int32, a::Integer, b::Integer)
    found = Ref{Int32}(0)
    check(L.tsstore_has_association(handle(s), table, Int64(a), Int64(b), found))
    return found[] != 0
end

"""Whether the attribute is attached to the component."""
has_supplemental_attribute_association(s::Store, component_id, attribute_id) =
    has_association(s, SUPPLEMENTAL, component_id, attribute_id)

"""Whether the edge parent → child exists."""
has_parent_child_association(s::Store, parent_id, child_id) = has_association(s, PARENT_CHILD, parent_id, child_id)

function list_associations(s::Store, table::Int32, a_ids, b_ids, a_type, b_type)
    (a, na), (b, nb) = id_list(a_ids), id_list(b_ids)
    out = Ref{Ptr{L.tsstore_associations}}(C_NULL)
    check(L.tsstore_list_associations(handle(s), table, a, na, b, nb, cstr(a_type), cstr(b_type), out))
    try
        n = Ref{Csize_t}(0)
        check(L.tsstore_associations_len(out[], n))
        n[] == 0 && return Tuple{Int64,String,Int64,String}[]
        arr = fill(L.tsstore_association(), Int(n[]))
        check(L.tsstore_associations_get(out[], 0, n[], arr))
        # (the strings are the list's: read before it is freed)
        return Tuple{Int64,String,Int64,String}[(r.a_id, text_field(r.a_type), r.b_id, text_field(r.b_type))
                                                for r in arr]
    finally
        L.tsstore_associations_free(out[])
    end
end

"""Rows of (component_id, component_type, attribute_id, attribute_type) matching every filter."""
list_supplemental_attribute_associations(s::Store; component_ids = nothing, attribute_ids = nothing,
                                         component_type = nothing, attribute_type = nothing) =
    list_associations(s, SUPPLEMENTAL, component_ids, attribute_ids, component_type, attribute_type)

"""The distinct components carrying the given attributes (all: nothing), ascending."""
list_component_ids_with_attributes(s::Store; attribute_ids = nothing, attribute_type = nothing) =
    sort!(unique(r[1] for r in list_supplemental_attribute_associations(s; attribute_ids = attribute_ids,
                                                                          attribute_type = attribute_type)))

"""The distinct attributes attached to the given components (all: nothing), ascending."""
list_attribute_ids_of_components(s::Store; component_ids = nothing, attribute_type = nothing) =
    sort!(unique(r[3] for r in list_supplemental_attribute_associations(s; component_ids = component_ids,
                                                                          attribute_type = attribute_type)))

"""The arrays more than one series references: data_hash (hex) => their keys."""
function shared_arrays(s::Store)
    groups = Dict{String,Vector{Key}}()
    for m in list_metadata(s)
        push!(get!(() -> Key[], groups, m.data_hash), m.key)
    end
    return filter(kv -> length(kv[2]) > 1, groups)
end

"""Rows of (parent_id, parent_type, child_id, child_type) matching every filter."""
list_parent_child_associations(s::Store; parent_ids = nothing, child_ids = nothing, parent_type = nothing,
                               child_type = nothing) =
    list_associations(s, PARENT_CHILD, parent_ids, child_ids, parent_type, child_type)

function remove_associations!(s::Store, table::Int32, a_ids, b_ids, a_type, b_type)
    (a, na), (b, nb) = id_list(a_ids), id_list(b_ids)
    removed = Ref{Int64}(0)
    check(L.tsstore_remove_associations(handle(s), table, a, na, b, nb, cstr(a_type), cstr(b_type), removed))
    return Int(removed[])
end

"""Removes the matching rows (no filter: all) and returns how many."""
remove_supplemental_attribute_associations!(s::Store; component_ids = nothing, attribute_ids = nothing,
                                            component_type = nothing, attribute_type = nothing) =
    remove_associations!(s, SUPPLEMENTAL, component_ids, attribute_ids, component_type, attribute_type)

"""Removes the matching edges and returns how many."""
remove_parent_child_associations!(s::Store; parent_ids = nothing, child_ids = nothing, parent_type = nothing,
                                  child_type = nothing) =
    remove_associations!(s, PARENT_CHILD, parent_ids, child_ids, parent_type, child_type)

"""The children of a component, ascending."""
children_of(s::Store, parent_id::Integer) =
    sort!(unique(Int64[r[3] for r in list_parent_child_associations(s; parent_ids = [parent_id])]))

"""The parents of a component, ascending."""
parents_of(s::Store, child_id::Integer) =
    sort!(unique(Int64[r[1] for r in list_parent_child_associations(s; child_ids = [child_id])]))

function replace_association_id!(s::Store, table::Int32, old::Integer, new::Integer)
    changed = Ref{Int64}(0)
    check(L.tsstore_replace_association_id(handle(s), table, Int64(old), Int64(new), changed))
    return Int(changed[])
end

"""Replaces a component id in the supplemental-attribute associations; returns rows changed."""
replace_association_component_id!(s::Store, old, new) = replace_association_id!(s, SUPPLEMENTAL, old, new)

"""Replaces an id at both ends of the parent/child edges; returns rows changed."""
replace_parent_child_id!(s::Store, old, new) = replace_association_id!(s, PARENT_CHILD, old, new)

function association_counts(s::Store, table::Int32)
    c = Ref(L.tsstore_association_tally())
    check(L.tsstore_association_counts(handle(s), table, c))
    return Int(c[].rows), Int(c[].distinct_a), Int(c[].distinct_b)
end

"""`(rows, components, attributes)` of the supplemental-attribute associations."""
function supplemental_attribute_association_counts(s::Store)
    r, a, b = association_counts(s, SUPPLEMENTAL)
    return (rows = r, components = a, attributes = b)
end

"""`(rows, parents, children)` of the parent/child associations."""
function parent_child_association_counts(s::Store)
    r, a, b = association_counts(s, PARENT_CHILD)
    return (rows = r, parents = a, children = b)
end

# ---- queries ------------------------------------------------------------------------------

hash_bytes(h::AbstractVector{UInt8}) = length(h) == 32 ? Vector{UInt8}(h) :
    throw(ArgumentError("a data hash is 32 bytes, not $(length(h))"))
function hash_bytes(h::AbstractString)
    (length(h) == 64 && all(isxdigit, h)) || throw(ArgumentError("data_hash: \"$h\" is not 64 hexadecimal digits"))
    return hex2bytes(h)
end

# The stored dimensions before the element shape: [T, *E], [H, count, *E], [P, H, count, *E].
lead_axes(t::SeriesType) = t in (SINGLE_TIME_SERIES, NON_SEQUENTIAL_TIME_SERIES) ? 1 :
                           t in (PROBABILISTIC, SCENARIOS) ? 3 : 2

"""The catalog record of a series_info (its strings read now)."""
function metadata_of(info::L.tsstore_series_info)
    key = key_from_lookup(info.key)
    t = SeriesType(info.key.series_type)
    opt(x) = isempty(x) ? nothing : x
    shape = shape_of(info.shape, info.ndim)
    return (series_type = t, dtype = dtype_of(info.dtype), length = Int(info.length), count = Int(info.count),
            initial_timestamp = t == NON_SEQUENTIAL_TIME_SERIES ? nothing : from_millis(info.initial_ms),
            element_shape = Tuple(shape[lead_axes(t)+1:end]), owner_type = opt(text_field(info.owner_type)),
            units = opt(text_field(info.units)), ext = opt(text_field(info.ext)), resolution = key.resolution,
            horizon = dates_period(info.horizon), interval = key.interval, data_hash = bytes2hex(collect(info.data_hash)),
            features_hash = bytes2hex(collect(info.features_hash)), key = key)
end

"""
    get_metadata(store, key) -> NamedTuple
    get_metadata(store, T, owner_id, name; owner_category, resolution, interval, features...)

The catalog record of a series (one C call, no array read): series_type, dtype, length (the
store's first axis), count, initial_timestamp, element_shape (store order), owner_type, units,
ext, resolution, horizon, interval, data_hash and features_hash (hex), key.
"""
get_metadata(s::Store, key::Key) = metadata(s, Which(key))
get_metadata(s::Store, T, owner_id::Integer, name::AbstractString; kw...) =
    metadata(s, which_named(T, owner_id, name; kw...))

function metadata(s::Store, w::Which)
    h = handle(s)
    info = Ref(L.tsstore_series_info())
    return with_lookup(w) do q
        check(L.tsstore_get_info(h, q, info))
        metadata_of(info[])  # (its strings are the store's)
    end
end

function by_type(c::L.tsstore_type_counts)
    counts = (SINGLE_TIME_SERIES => c.single_time_series, NON_SEQUENTIAL_TIME_SERIES => c.non_sequential_time_series,
              DETERMINISTIC => c.deterministic, DETERMINISTIC_SINGLE_TIME_SERIES => c.deterministic_single_time_series,
              PROBABILISTIC => c.probabilistic, SCENARIOS => c.scenarios)
    return Dict{SeriesType,Int}(t => Int(n) for (t, n) in counts if n > 0)
end

"""The number of series of each type present."""
function counts_by_type(s::Store)
    c = Ref(L.tsstore_type_counts())
    check(L.tsstore_counts_by_type(handle(s), c))
    return by_type(c[])
end

"""The number of distinct stored arrays."""
function count_arrays(s::Store)
    n = Ref{Int64}(0)
    check(L.tsstore_count_arrays(handle(s), n))
    return Int(n[])
end

"""How many series of each type reference the array with this hash."""
function count_by_hash(s::Store, data_hash)
    c = Ref(L.tsstore_type_counts())
    check(L.tsstore_count_by_hash(handle(s), hash_bytes(data_hash), c))
    return by_type(c[])
end

"""The keys of every series that references the array with this hash."""
function keys_by_hash(s::Store, data_hash)
    out = Ref{Ptr{L.tsstore_keys}}(C_NULL)
    check(L.tsstore_keys_by_hash(handle(s), hash_bytes(data_hash), out))
    return keys_from_list(out[])
end

"""A stored array by its content hash, as a Julia array (dimensions reversed)."""
function get_array(s::Store, data_hash)
    h, digest = handle(s), hash_bytes(data_hash)
    info = Ref(L.tsstore_series_info())
    sized(L.tsstore_get_array(h, digest, C_NULL, 0, info))
    arr = array_for(info[])
    check(L.tsstore_get_array(h, digest, arr, sizeof(arr), info))
    return arr
end

function distinct(s::Store, field::Int32)
    out = Ref{Ptr{L.tsstore_strings}}(C_NULL)
    check(L.tsstore_list_distinct(handle(s), field, out))
    return strings_from_list(out[])
end

"""Distinct series names."""
list_names(s::Store) = distinct(s, L.TSSTORE_FIELD_NAME)
"""Distinct owner type names."""
list_owner_types(s::Store) = distinct(s, L.TSSTORE_FIELD_OWNER_TYPE)
"""Distinct resolutions, shortest first."""
list_resolutions(s::Store) = Period[parse_period(x) for x in distinct(s, L.TSSTORE_FIELD_RESOLUTION)]
"""Distinct forecast intervals, shortest first."""
list_intervals(s::Store) = Period[parse_period(x) for x in distinct(s, L.TSSTORE_FIELD_INTERVAL)]

"""The records a (dst, capacity, *n) call writes: sized, then filled (again if another task
added some in between)."""
function records(f, ::Type{T}) where {T}
    n = Ref{Csize_t}(0)
    sized(f(C_NULL, 0, n))
    for _ in 1:3
        dst = fill(T(), max(Int(n[]), 1))
        status = f(dst, length(dst), n)
        status == L.TSSTORE_E_BUFFER_TOO_SMALL && continue
        check(status)
        return dst[1:Int(n[])]
    end
    throw(BufferTooSmallError("the records kept growing while they were read"))
end

"""One NamedTuple per distinct set of forecast window parameters."""
function forecast_parameters(s::Store)
    h = handle(s)
    return map(records((dst, cap, n) -> L.tsstore_forecast_parameters(h, dst, cap, n), L.tsstore_forecast_params)) do p
        (series_type = SeriesType(p.series_type), initial_timestamp = from_millis(p.initial_ms),
         resolution = dates_period(p.resolution), horizon = dates_period(p.horizon),
         interval = dates_period(p.interval), count = Int(p.count), series = Int(p.n_series))
    end
end

"""One NamedTuple per grid of the SingleTimeSeries: resolution, initial_timestamp, length,
series and owners."""
function static_summary(s::Store)
    h = handle(s)
    return map(records((dst, cap, n) -> L.tsstore_static_summary(h, dst, cap, n), L.tsstore_static_grid)) do g
        (resolution = dates_period(g.resolution), initial_timestamp = from_millis(g.initial_ms), length = Int(g.length),
         series = Int(g.n_series), owners = Int(g.n_owners))
    end
end

# ---- owner moves --------------------------------------------------------------------------

"""Attaches a stored series to another owner too (the array is shared), optionally renamed;
returns the new key."""
function copy_time_series!(s::Store, key::Key; owner_id::Integer, owner_type::AbstractString,
                           owner_category::OwnerCategory = COMPONENT, name = nothing)
    h = handle(s)
    with_lookup(Which(key)) do q
        check(L.tsstore_copy_series(h, q, Int64(owner_id), cstr(owner_type), Int32(owner_category), cstr(name)))
    end
    return Key(Int64(owner_id), owner_category, key.series_type, name === nothing ? key.name : String(name),
               key.resolution, key.interval, copy(key.features), Int64(0))
end

"""Renames a stored series and returns its new key."""
function rename_time_series!(s::Store, key::Key, name::AbstractString)
    h = handle(s)
    with_lookup(q -> check(L.tsstore_rename_series(h, q, cstr(name))), Which(key))
    return Key(key.owner_id, key.owner_category, key.series_type, String(name), key.resolution, key.interval,
               copy(key.features), Int64(0))
end

"""Moves every series of one owner to another id, all or nothing; returns how many."""
function replace_owner_id!(s::Store, old::Integer, new::Integer; owner_category::OwnerCategory = COMPONENT)
    moved = Ref{Int64}(0)
    check(L.tsstore_replace_owner_id(handle(s), Int64(old), Int32(owner_category), Int64(new), moved))
    return Int(moved[])
end

# ---- the library --------------------------------------------------------------------------

"""The library's version number (major × 10000 + minor × 100 + patch: 301 is 0.3.1)."""
library_version() = Int(L.tsstore_version())

"""The name of a status code ("TSSTORE_E_NOT_FOUND")."""
status_name(code::Integer) = unsafe_string(L.tsstore_status_name(Int32(code)))

const LOG_CALLBACKS = Any[]  # every installed callback stays alive (a running call may still use one)

"""Installs f(line::String) for the library's debug log lines; `nothing` uninstalls. It runs on
whichever thread logs, inside a library call: it must be quick, must not call into the store
and should not do I/O or yield (push the line onto a vector; print it later). Errors it throws
are dropped."""
function set_log_callback(f)
    if f === nothing
        check(L.tsstore_set_log_callback(C_NULL, C_NULL))
        return nothing
    end
    # A closure cfunction (Julia ≥ 1.9 adopts a foreign thread that calls it).
    # An exception must not unwind through the library's frames: it is dropped here.
    deliver = function (line, _user)
        try
            f(unsafe_string(line))
        catch
        end
        return nothing
    end
    cb = @cfunction($deliver, Cvoid, (Ptr{Cchar}, Ptr{Cvoid}))
    push!(LOG_CALLBACKS, cb)
    check(L.tsstore_set_log_callback(Base.unsafe_convert(Ptr{Cvoid}, cb), C_NULL))
    return nothing
end
