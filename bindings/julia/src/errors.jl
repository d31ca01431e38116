# Exceptions: one type per status of include/tsstore.h, each carrying the library's message.

"""Supertype of every error the library reports; `e.msg` is the library's message."""
abstract type TsStoreError <: Exception end

const ERROR_TYPES = Dict{Int32,DataType}()

for (T, code, doc) in (
    (:InvalidParameterError, L.TSSTORE_E_INVALID_PARAMETER, "A bad argument; the message names it and its value."),
    (:NotFoundError, L.TSSTORE_E_NOT_FOUND, "No such series, array or association."),
    (:DuplicateTimeSeriesError, L.TSSTORE_E_DUPLICATE_TIME_SERIES, "The key is already stored."),
    (:DuplicateAssociationError, L.TSSTORE_E_DUPLICATE_ASSOCIATION, "The pair is already associated."),
    (:IntegrityError, L.TSSTORE_E_INTEGRITY, "The two files of the store disagree."),
    (:ReadOnlyError, L.TSSTORE_E_READ_ONLY, "A write on a store opened read-only."),
    (:TsStoreIOError, L.TSSTORE_E_IO, "netcdf-c, HDF5, SQLite or the operating system failed."),
    (:IncompatibleFormatError, L.TSSTORE_E_INCOMPATIBLE_FORMAT,
     "The store's data_format_version is not the one this library reads."),
    (:InternalError, L.TSSTORE_E_INTERNAL, "A bug in tsstore: please report the message."),
    (:BufferTooSmallError, L.TSSTORE_E_BUFFER_TOO_SMALL, "A buffer was too small (the binding sizes its buffers: a bug)."),
    (:InvalidHandleError, L.TSSTORE_E_INVALID_HANDLE, "A handle was used after it was closed or freed."),
)
    @eval begin
        @doc $doc struct $T <: TsStoreError
            msg::String
        end
        status(::Type{$T}) = $code
        ERROR_TYPES[$code] = $T
    end
end

"""A status this binding does not know (a newer library)."""
struct UnknownStatusError <: TsStoreError
    msg::String
end

Base.showerror(io::IO, e::TsStoreError) = print(io, nameof(typeof(e)), ": ", e.msg)

"""
    without_finalizers(f)

Runs f() with this task's finalizers held back. Strings the library returns point into memory
that stays valid only until the calling thread's next call into it, and a finalizer (a
Store's or a reader's, closing it) may run at any allocation: f copies them out first.
"""
function without_finalizers(f)
    enable_finalizers(false)
    try
        return f()
    finally
        enable_finalizers(true)
    end
end

"""The calling thread's last error message from the library (`tsstore_errmsg`)."""
last_error() = without_finalizers(() -> unsafe_string(L.tsstore_errmsg()))

"""Throws the exception of a non-zero status."""
@inline function check(status::Integer)
    status == L.TSSTORE_OK && return nothing
    throw_status(status)
end

@noinline function throw_status(status::Integer)
    msg = last_error()
    T = get(ERROR_TYPES, Int32(status), UnknownStatusError)
    throw(T(T === UnknownStatusError ? "status $status: $msg" : msg))
end

"""A first call that only sizes an answer (a NULL buffer of capacity 0) succeeds or says the
buffer is too small; anything else is thrown."""
sized(status::Integer) = status == L.TSSTORE_E_BUFFER_TOO_SMALL ? nothing : check(status)
