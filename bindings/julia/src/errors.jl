# Exceptions: one type per status of include/tsstore.h, each carrying the library's message.

"""Supertype of every error the library reports; `e.msg` is the library's message."""
abstract type TsStoreError <: Exception end

const ERROR_TYPES = Dict{Int32,DataType}()

for (T, code, doc) in (
    (:InvalidParameterError, 1, "A bad argument; the message names it and its value."),
    (:NotFoundError, 2, "No such series, array or association."),
    (:DuplicateTimeSeriesError, 3, "The key is already stored."),
    (:DuplicateAssociationError, 4, "The pair is already associated."),
    (:IntegrityError, 5, "The two files of the store disagree."),
    (:ReadOnlyError, 6, "A write on a store opened read-only."),
    (:TsStoreIOError, 7, "netcdf-c, HDF5, SQLite or the operating system failed."),
    (:IncompatibleFormatError, 8, "The store's data_format_version is not the one this library reads."),
    (:InternalError, 9, "A bug in tsstore: please report the message."),
    (:BufferTooSmallError, 10, "A buffer was too small (the binding sizes its buffers: a bug)."),
    (:InvalidHandleError, 11, "A handle was used after it was closed or freed."),
)
    @eval begin
        @doc $doc struct $T <: TsStoreError
            msg::String
        end
        status(::Type{$T}) = Int32($code)
        ERROR_TYPES[Int32($code)] = $T
    end
end

"""A status this binding does not know (a newer library)."""
struct UnknownStatusError <: TsStoreError
    msg::String
end

Base.showerror(io::IO, e::TsStoreError) = print(io, nameof(typeof(e)), ": ", e.msg)

"""The calling thread's last error message from the library."""
function last_error()
    needed = Ref{Csize_t}(0)
    L.tsstore_last_error(Ptr{UInt8}(C_NULL), 0, needed)
    buf = Vector{UInt8}(undef, max(needed[], 1))
    L.tsstore_last_error(buf, length(buf), needed)
    return String(buf[1:max(needed[], 1)-1])
end

"""Throws the exception of a non-zero status."""
function check(status::Integer)
    status == 0 && return nothing
    T = get(ERROR_TYPES, Int32(status), UnknownStatusError)
    throw(T(last_error()))
end
