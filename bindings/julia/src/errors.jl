# Exceptions: one type per status of include/tsstore.h (the generated L.STATUSES), each
# carrying what the library reports of the failure (tsstore_last_error): the argument to blame
# as a code, the failing element of a list argument, the detail within it, and the reason.
# The message names the argument as a Julia caller wrote it.

"""
Supertype of every error the library reports. Fields: `msg` (the message, naming the Julia
argument), `status` (the C status code), `arg` (the `TSSTORE_ARG_*` name of the blamed input,
`""` for none), `item` (the failing element of a list argument, 1-based; `nothing` for none),
`detail` (within arg: a feature's name, an axis) and `reason` (the library's why).
"""
abstract type TsStoreError <: Exception end

const ERROR_TYPES = Dict{Int32,DataType}()

# The fields of every TsStoreError (its docstring says what each holds): one list for the types
# of the statuses and UnknownStatusError.
macro error_fields()
    return esc(quote
        msg::String
        status::Int32
        arg::String
        item::Union{Nothing,Int}
        detail::String
        reason::String
    end)
end

# The Julia name of each status's exception, and its docstring.
const ERROR_NAMES = Dict(
    "TSSTORE_E_INVALID_PARAMETER" => (:InvalidParameterError, "A bad argument; the message names it and its value."),
    "TSSTORE_E_NOT_FOUND" => (:NotFoundError, "No such series, array or association."),
    "TSSTORE_E_DUPLICATE_TIME_SERIES" => (:DuplicateTimeSeriesError, "The key is already stored."),
    "TSSTORE_E_DUPLICATE_ASSOCIATION" => (:DuplicateAssociationError, "The pair is already associated."),
    "TSSTORE_E_INTEGRITY" => (:IntegrityError, "The two files of the store disagree."),
    "TSSTORE_E_READ_ONLY" => (:ReadOnlyError, "A write on a store opened read-only."),
    "TSSTORE_E_IO" => (:TsStoreIOError, "netcdf-c, HDF5, SQLite or the operating system failed."),
    "TSSTORE_E_INCOMPATIBLE_FORMAT" => (:IncompatibleFormatError,
                                        "The store's data_format_version is not the one this library reads."),
    "TSSTORE_E_INTERNAL" => (:InternalError, "A bug in tsstore: please report the message."),
    "TSSTORE_E_BUFFER_TOO_SMALL" => (:BufferTooSmallError,
                                     "A buffer was too small (the binding sizes its buffers: a bug)."),
    "TSSTORE_E_INVALID_HANDLE" => (:InvalidHandleError, "A handle was used after it was closed or freed."),
)

for (code, cname, _) in L.STATUSES
    code == L.TSSTORE_OK && continue
    haskey(ERROR_NAMES, cname) || error("TsStore: the header has a status $cname this binding has no exception for")
    T, doc = ERROR_NAMES[cname]
    @eval begin
        @doc $doc struct $T <: TsStoreError
            @error_fields
        end
        $T(msg::AbstractString) = $T(String(msg), $code, "", nothing, "", String(msg))
        status(::Type{$T}) = $code
        ERROR_TYPES[$code] = $T
    end
end

"""A status this binding does not know (a newer library)."""
struct UnknownStatusError <: TsStoreError
    @error_fields
end

Base.showerror(io::IO, e::TsStoreError) = print(io, nameof(typeof(e)), ": ", e.msg)

"""The `TSSTORE_ARG_*` name of each argument code (from the generated L.ARGS)."""
const ARG_NAMES = Dict{Int32,String}(code => name for (code, name, _) in L.ARGS)

# How a Julia caller spells each argument: in an add, the fields of the series `ts`; in a
# lookup, the keywords of get_time_series & co. Codes not here keep the library's spelling
# (they name C-level arguments this binding fills itself: a bug if one is blamed).
const JULIA_ARGS_ADD = Dict(
    "TSSTORE_ARG_SERIES" => "ts", "TSSTORE_ARG_SERIES_TYPE" => "ts", "TSSTORE_ARG_NAME" => "ts.name",
    "TSSTORE_ARG_DTYPE" => "ts.data", "TSSTORE_ARG_SHAPE" => "ts.data", "TSSTORE_ARG_DATA" => "ts.data",
    "TSSTORE_ARG_INITIAL_TIMESTAMP" => "ts.initial_timestamp", "TSSTORE_ARG_RESOLUTION" => "ts.resolution",
    "TSSTORE_ARG_TIMESTAMPS" => "ts.timestamps", "TSSTORE_ARG_HORIZON" => "ts.horizon",
    "TSSTORE_ARG_INTERVAL" => "ts.interval", "TSSTORE_ARG_COUNT" => "ts.count",
    "TSSTORE_ARG_PERCENTILES" => "ts.percentiles",
)
const JULIA_ARGS = Dict(
    "TSSTORE_ARG_PATH" => "path", "TSSTORE_ARG_COMPRESSION" => "compression", "TSSTORE_ARG_SERIES_TYPE" => "T",
    "TSSTORE_ARG_OWNER_ID" => "owner_id", "TSSTORE_ARG_OWNER_CATEGORY" => "owner_category",
    "TSSTORE_ARG_OWNER_TYPE" => "owner_type", "TSSTORE_ARG_NAME" => "name", "TSSTORE_ARG_RESOLUTION" => "resolution",
    "TSSTORE_ARG_INTERVAL" => "interval", "TSSTORE_ARG_FEATURES" => "features", "TSSTORE_ARG_UNITS" => "units",
    "TSSTORE_ARG_EXT" => "ext", "TSSTORE_ARG_START" => "start", "TSSTORE_ARG_END" => "stop",
    "TSSTORE_ARG_KEYS" => "keys", "TSSTORE_ARG_STEP" => "step",
    # The lookup or series as a whole, or nothing: the reason names them itself.
    "TSSTORE_ARG_NONE" => "", "TSSTORE_ARG_LOOKUP" => "", "TSSTORE_ARG_SERIES" => "", "TSSTORE_ARG_FILTER" => "",
    "TSSTORE_ARG_HASH" => "data_hash", "TSSTORE_ARG_NEW_NAME" => "name", "TSSTORE_ARG_NEW_ID" => "new",
    "TSSTORE_ARG_GROUP" => "group", "TSSTORE_ARG_BYTES" => "nbytes", "TSSTORE_ARG_A_TYPE" => "rows",
    "TSSTORE_ARG_B_TYPE" => "rows",
)

# The library's spelling of each code (its header comment's first name: "dst", "which"),
# for those the tables above leave out.
const C_NAMES = Dict{String,String}(name => String(split(split(comment, ",")[1], " (")[1])
                                    for (_, name, comment) in L.ARGS)

const ADD_OPERATIONS = ("add_time_series", "add_time_series_batch")

"""The Julia spelling of what a failure blames: `items[3]: ts.data`, `features["x"]`, `keys[2]`."""
function julia_argument(op::AbstractString, arg::AbstractString, item, detail::AbstractString)
    adding = op in ADD_OPERATIONS
    name = get(adding ? JULIA_ARGS_ADD : Dict{String,String}(), arg, get(JULIA_ARGS, arg, get(C_NAMES, arg, "")))
    if arg == "TSSTORE_ARG_FEATURES" && !isempty(detail) && !all(isdigit, detail)
        name = "features[$(repr(detail))]"
    elseif arg == "TSSTORE_ARG_NONE" && !isempty(detail)
        name = detail  # a catalog column of a damaged store
    end
    item === nothing && return name
    list = adding ? "items" : "keys"
    return arg in ("TSSTORE_ARG_LOOKUP", "TSSTORE_ARG_SERIES") || isempty(name) ? "$list[$item]" : "$list[$item]: $name"
end

"""The calling thread's last failure as an exception of its status's type."""
function last_failure(status::Integer)
    h = Ref{Ptr{L.tsstore_error}}(C_NULL)
    info = Ref(L.tsstore_error_info())
    if L.tsstore_last_error(h) != L.TSSTORE_OK
        return UnknownStatusError("status $status (no error report)", Int32(status), "", nothing, "", "")
    end
    try
        L.tsstore_error_get(h[], info) == L.TSSTORE_OK ||
            return UnknownStatusError("status $status (no error report)", Int32(status), "", nothing, "", "")
        r = info[]
        op, detail, reason = text_field(r.operation), text_field(r.detail), text_field(r.reason)
        arg = get(ARG_NAMES, r.arg, "TSSTORE_ARG_$(r.arg)")
        item = r.item < 0 ? nothing : Int(r.item) + 1
        where = julia_argument(op, arg, item, detail)
        msg = join(filter(!isempty, [op, where, reason]), ": ")
        T = get(ERROR_TYPES, Int32(status), UnknownStatusError)
        return T(T === UnknownStatusError ? "status $status: $msg" : msg, Int32(status), arg == "TSSTORE_ARG_NONE" ? "" : arg,
                 item, detail, reason)
    finally
        L.tsstore_error_free(h[])
    end
end

"""The calling thread's last error message from the library."""
last_error() = read_text((buf, cap, needed) -> L.tsstore_last_error_message(buf, cap, needed))

"""Throws the exception of a non-zero status."""
@inline function check(status::Integer)
    status == L.TSSTORE_OK && return nothing
    throw_status(status)
end

@noinline throw_status(status::Integer) = throw(last_failure(status))

"""A first call that only sizes an answer (a NULL buffer of capacity 0) succeeds or says the
buffer is too small; anything else is thrown."""
sized(status::Integer) = status == L.TSSTORE_E_BUFFER_TOO_SMALL ? nothing : check(status)
