# Associations, queries, summaries and owner moves.

const SUPPLEMENTAL, PARENT_CHILD = Int32(0), Int32(1)

"""A NULL id list (matches everything) or the ids (an empty list matches nothing)."""
id_list(::Nothing) = (Ptr{Int64}(C_NULL), 0)
function id_list(ids)
    v = Int64[ids...]
    return (isempty(v) ? Int64[0] : v, length(v))  # non-NULL even when empty
end

function add_associations!(s::Store, table::Int32, rows)
    rows = collect(rows)
    a, b = Int64[r[1] for r in rows], Int64[r[3] for r in rows]
    at, bt = String[cstr(r[2]::AbstractString) for r in rows], String[cstr(r[4]::AbstractString) for r in rows]
    GC.@preserve at bt begin
        ap, bp = Ptr{UInt8}[pointer(x) for x in at], Ptr{UInt8}[pointer(x) for x in bt]
        check(L.tsstore_add_associations(handle(s), table, length(rows), a, ap, b, bp))
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
    rows = Tuple{Int64,String,Int64,String}[]
    try
        n = Ref{Csize_t}(0)
        check(L.tsstore_associations_len(out[], n))
        for i in 0:Int(n[])-1
            ai, bi = Ref{Int64}(0), Ref{Int64}(0)
            check(L.tsstore_associations_ids(out[], i, ai, bi))
            push!(rows, (ai[], read_text(L.tsstore_associations_type, out[], i, Int32(0)), bi[],
                         read_text(L.tsstore_associations_type, out[], i, Int32(1))))
        end
    finally
        L.tsstore_associations_free(out[])
    end
    return rows
end

"""Rows of (component_id, component_type, attribute_id, attribute_type) matching every filter."""
list_supplemental_attribute_associations(s::Store; component_ids = nothing, attribute_ids = nothing,
                                         component_type = nothing, attribute_type = nothing) =
    list_associations(s, SUPPLEMENTAL, component_ids, attribute_ids, component_type, attribute_type)

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
get_children(s::Store, parent_id::Integer) =
    sort!(unique([r[3] for r in list_parent_child_associations(s; parent_ids = [parent_id])]))

"""The parents of a component, ascending."""
get_parents(s::Store, child_id::Integer) =
    sort!(unique([r[1] for r in list_parent_child_associations(s; child_ids = [child_id])]))

function replace_association_id!(s::Store, table::Int32, old::Integer, new::Integer)
    changed = Ref{Int64}(0)
    check(L.tsstore_replace_association_id(handle(s), table, Int64(old), Int64(new), changed))
    return Int(changed[])
end

"""Replaces a component id in the supplemental-attribute associations; returns rows changed."""
replace_component_id_in_associations!(s::Store, old, new) = replace_association_id!(s, SUPPLEMENTAL, old, new)

"""Replaces an id at both ends of the parent/child edges; returns rows changed."""
replace_parent_child_id!(s::Store, old, new) = replace_association_id!(s, PARENT_CHILD, old, new)

function association_counts(s::Store, table::Int32)
    rows, a, b = Ref{Int64}(0), Ref{Int64}(0), Ref{Int64}(0)
    check(L.tsstore_association_counts(handle(s), table, rows, a, b))
    return rows[], a[], b[]
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

"""
    get_metadata(store, key) -> NamedTuple

The catalog record of a series: series_type, dtype, length (the store's first axis), count,
initial_timestamp, element_shape (store order), owner_type, units, ext, resolution, horizon,
interval, data_hash and features_hash (hex), key.
"""
function get_metadata(s::Store, key::Key)
    out = Ref{Ptr{L.tsstore_metadata}}(C_NULL)
    with_key(kh -> check(L.tsstore_get_metadata(handle(s), kh, out)), key)
    m = out[]
    try
        typ, dtype, len, count, initial = Ref{Int32}(0), Ref{Int32}(0), Ref{Int64}(0), Ref{Int64}(0), Ref{Int64}(0)
        check(L.tsstore_metadata_info(m, typ, dtype, len, count, initial))
        ndim = Ref{Csize_t}(0)
        check(L.tsstore_metadata_element_shape(m, Ptr{Int64}(C_NULL), 0, ndim))
        shape = Vector{Int64}(undef, ndim[])
        check(L.tsstore_metadata_element_shape(m, shape, length(shape), ndim))
        text = [read_text(L.tsstore_metadata_text, m, Int32(i)) for i in 0:5]
        hashes = map(0:1) do which
            h = Vector{UInt8}(undef, 32)
            check(L.tsstore_metadata_hash(m, Int32(which), h))
            bytes2hex(h)
        end
        kh = Ref{Ptr{L.tsstore_key}}(C_NULL)
        check(L.tsstore_metadata_key(m, kh))
        k = try
            key_from_handle(kh[])
        finally
            L.tsstore_key_free(kh[])
        end
        t = SeriesType(typ[])
        opt(x) = isempty(x) ? nothing : x
        per(x) = isempty(x) ? nothing : parse_period(x)
        return (series_type = t, dtype = DTYPES[dtype[]+1], length = Int(len[]), count = Int(count[]),
                initial_timestamp = t == NON_SEQUENTIAL_TIME_SERIES ? nothing : from_millis(initial[]),
                element_shape = Tuple(Int.(shape)), owner_type = opt(text[1]), units = opt(text[2]), ext = opt(text[3]),
                resolution = per(text[4]), horizon = per(text[5]), interval = per(text[6]), data_hash = hashes[1],
                features_hash = hashes[2], key = k)
    finally
        L.tsstore_metadata_free(m)
    end
end

"""The number of series of each type present."""
function get_counts_by_type(s::Store)
    counts = zeros(Int64, 7)
    check(L.tsstore_counts_by_type(handle(s), counts))
    return Dict(SeriesType(i - 1) => Int(counts[i]) for i in 1:6 if counts[i] > 0)
end

"""The number of distinct stored arrays."""
function get_num_arrays(s::Store)
    n = Ref{Int64}(0)
    check(L.tsstore_count_arrays(handle(s), n))
    return Int(n[])
end

"""How many series of each type reference the array with this hash."""
function get_counts_by_hash(s::Store, data_hash)
    counts = zeros(Int64, 7)
    check(L.tsstore_count_by_hash(handle(s), hash_bytes(data_hash), counts))
    return Dict(SeriesType(i - 1) => Int(counts[i]) for i in 1:6 if counts[i] > 0)
end

"""The keys of every series that references the array with this hash."""
function list_keys_by_hash(s::Store, data_hash)
    out = Ref{Ptr{L.tsstore_keys}}(C_NULL)
    check(L.tsstore_keys_by_hash(handle(s), hash_bytes(data_hash), out))
    return keys_from_list(out[])
end

"""A stored array by its content hash, as a Julia array (dimensions reversed)."""
function get_array(s::Store, data_hash)
    out = Ref{Ptr{L.tsstore_series}}(C_NULL)
    check(L.tsstore_get_array(handle(s), hash_bytes(data_hash), out))
    return take_series(out, "")
end

function distinct(s::Store, field::Integer)
    out = Ref{Ptr{L.tsstore_strings}}(C_NULL)
    check(L.tsstore_list_distinct(handle(s), Int32(field), out))
    try
        n = Ref{Csize_t}(0)
        check(L.tsstore_strings_len(out[], n))
        return [read_text(L.tsstore_strings_get, out[], i) for i in 0:Int(n[])-1]
    finally
        L.tsstore_strings_free(out[])
    end
end

"""Distinct series names."""
list_names(s::Store) = distinct(s, 0)
"""Distinct owner type names."""
list_owner_types(s::Store) = distinct(s, 1)
"""Distinct resolutions, shortest first."""
list_resolutions(s::Store) = parse_period.(distinct(s, 2))
"""Distinct forecast intervals, shortest first."""
list_intervals(s::Store) = parse_period.(distinct(s, 3))

"""One NamedTuple per distinct set of forecast window parameters."""
function get_forecast_parameters(s::Store)
    map(split(read_text(L.tsstore_forecast_parameters, handle(s)), '\n'; keepempty = false)) do line
        t, t0, res, hor, iv, count, n = split(line)
        (series_type = SeriesType(parse(Int32, t)), initial_timestamp = from_millis(parse(Int64, t0)),
         resolution = parse_period(res), horizon = parse_period(hor), interval = parse_period(iv),
         count = parse(Int, count), series = parse(Int, n))
    end
end

"""One NamedTuple per grid of the SingleTimeSeries: resolution, initial_timestamp, length,
series and owners."""
function get_static_summary(s::Store)
    map(split(read_text(L.tsstore_static_summary, handle(s)), '\n'; keepempty = false)) do line
        res, t0, len, n, owners = split(line)
        (resolution = parse_period(res), initial_timestamp = from_millis(parse(Int64, t0)), length = parse(Int, len),
         series = parse(Int, n), owners = parse(Int, owners))
    end
end

# ---- owner moves --------------------------------------------------------------------------

function take_key(out::Ref{Ptr{L.tsstore_key}})
    try
        return key_from_handle(out[])
    finally
        L.tsstore_key_free(out[])
    end
end

"""Attaches a stored series to another owner too (the array is shared), optionally renamed."""
function copy_time_series!(s::Store, key::Key; owner_id::Integer, owner_type::AbstractString,
                           owner_category::OwnerCategory = COMPONENT, name = nothing)
    out = Ref{Ptr{L.tsstore_key}}(C_NULL)
    with_key(key) do kh
        check(L.tsstore_copy_series(handle(s), kh, Int64(owner_id), cstr(owner_type), Int32(owner_category),
                                    cstr(name), out))
    end
    return take_key(out)
end

"""Renames a stored series and returns its new key."""
function rename_time_series!(s::Store, key::Key, name::AbstractString)
    out = Ref{Ptr{L.tsstore_key}}(C_NULL)
    with_key(kh -> check(L.tsstore_rename_series(handle(s), kh, cstr(name), out)), key)
    return take_key(out)
end

"""Moves every series of one owner to another id, all or nothing; returns how many."""
function replace_owner_id!(s::Store, old::Integer, new::Integer; owner_category::OwnerCategory = COMPONENT)
    moved = Ref{Int64}(0)
    check(L.tsstore_replace_owner_id(handle(s), Int32(owner_category), Int64(old), Int64(new), moved))
    return Int(moved[])
end

# ---- the library --------------------------------------------------------------------------

"""The library's version number (100 × major + minor, × 100 + patch: 100 is 0.1.0)."""
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
    cb = @cfunction($deliver, Cvoid, (Ptr{UInt8}, Ptr{Cvoid}))
    push!(LOG_CALLBACKS, cb)
    check(L.tsstore_set_log_callback(Base.unsafe_convert(Ptr{Cvoid}, cb), C_NULL))
    return nothing
end
