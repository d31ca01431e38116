# Conversions between Julia values and the library's: timestamps, periods, dtypes, features,
# strings and caller-filled buffers. Units only: the period grammar (ISO-8601 text) and every
# step or calendar computation are the library's (tsstore_period_parse / _format,
# tsstore_timeline, tsstore_infer_resolution).

const EPOCH = DateTime(1970)

"""Unix milliseconds of a DateTime (UTC) or Date."""
millis(t::DateTime) = Dates.value(t - EPOCH)
millis(d::Date) = millis(DateTime(d))
millis(x) = throw(ArgumentError("a timestamp is a Dates.DateTime or Date, not $(typeof(x))"))

"""The DateTime of Unix milliseconds."""
from_millis(ms::Integer) = EPOCH + Millisecond(ms)

# RFC 3339 bounds the store's timestamps (docs/format.md §5.2): the open ends of a range.
const MIN_MS = millis(DateTime(1, 1, 1))
const MAX_MS = millis(DateTime(9999, 12, 31, 23, 59, 59, 999))

# ---- periods ------------------------------------------------------------------------------

"""What a period argument may be: a Dates period, a compound one, or an ISO-8601 string."""
const PeriodLike = Union{Period,Dates.CompoundPeriod,AbstractString}

const FIXED = Union{Week,Day,Hour,Minute,Second,Millisecond}
const CALENDAR = Union{Month,Quarter,Year}

"""The absent period (unit TSSTORE_PERIOD_NONE): none, or "any" in lookups and filters."""
const NO_PERIOD = L.tsstore_period()

months(p::Month) = Int64(Dates.value(p))
months(p::Quarter) = 3 * Int64(Dates.value(p))
months(p::Year) = 12 * Int64(Dates.value(p))

fixed(ms::Integer) = L.tsstore_period(; value = Int64(ms), unit = L.TSSTORE_PERIOD_MILLIS)
calendar(n::Integer) = L.tsstore_period(; value = Int64(n), unit = L.TSSTORE_PERIOD_MONTHS)

"""
    period(p) -> LibTsStore.tsstore_period

The library's period of p: Week / Day / Hour / Minute / Second / Millisecond as a count of
milliseconds, Month / Quarter / Year as a count of calendar months (P1M is not 30 days), a
CompoundPeriod of one kind as their sum, ISO-8601 text parsed by the library (`"PT1H"`,
`"P1M"`), `nothing` as the absent period.
"""
period(::Nothing) = NO_PERIOD
period(p::L.tsstore_period) = p
period(p::FIXED) = fixed(Dates.toms(p))
period(p::CALENDAR) = calendar(months(p))
period(p::Period) = throw(ArgumentError("tsstore periods are whole milliseconds or calendar months, not $p"))
function period(p::Dates.CompoundPeriod)
    ms, mo = Int64(0), Int64(0)
    for q in p.periods
        if q isa FIXED
            ms += Dates.toms(q)
        elseif q isa CALENDAR
            mo += months(q)
        else
            throw(ArgumentError("tsstore periods are whole milliseconds or calendar months, not $q"))
        end
    end
    mo != 0 && ms != 0 && throw(ArgumentError("$p mixes calendar and fixed parts; the store keeps them apart"))
    return mo != 0 ? calendar(mo) : fixed(ms)
end
function period(text::AbstractString)
    out = Ref(NO_PERIOD)
    check(L.tsstore_period_parse(cstr(text), out))
    return out[]
end

"""
    dates_period(p::LibTsStore.tsstore_period)

The Dates period of a library period, in the largest unit that holds it exactly
(3 600 000 ms is `Hour(1)`, 5 400 000 ms `Minute(90)`, 86 400 000 ms `Day(1)`, 12 months
`Year(1)`, 14 months `Month(14)`); `nothing` for the absent period.
"""
function dates_period(p::L.tsstore_period)
    p.unit == L.TSSTORE_PERIOD_NONE && return nothing
    v = p.value
    if p.unit == L.TSSTORE_PERIOD_MONTHS
        return v % 12 == 0 ? Year(v ÷ 12) : Month(v)
    end
    p.unit == L.TSSTORE_PERIOD_MILLIS || throw(ArgumentError("unknown period unit $(p.unit)"))
    v == 0 && return Second(0)
    v % 86_400_000 == 0 && return Day(v ÷ 86_400_000)
    v % 3_600_000 == 0 && return Hour(v ÷ 3_600_000)
    v % 60_000 == 0 && return Minute(v ÷ 60_000)
    v % 1000 == 0 && return Second(v ÷ 1000)
    return Millisecond(v)
end

"""The Dates period of an ISO-8601 duration, parsed by the library ("PT1H" → Hour(1),
"P1M" → Month(1), "PT0.25S" → Millisecond(250))."""
parse_period(text::AbstractString) = dates_period(period(text))

to_period(p::AbstractString) = parse_period(p)
to_period(p::Union{Period,Dates.CompoundPeriod}) = p

"""The canonical ISO-8601 text of a period, written by the library ("PT1H", "P1D", "P1M")."""
function iso(p)
    q = Ref(period(p))
    return read_text((buf, cap, needed) -> L.tsstore_period_format(q, buf, cap, needed))
end

# ---- timelines: computed by the library -----------------------------------------------------

"""The n timestamps (Unix ms) initial_ms + (first + i) × step, i < n, from the library
(calendar steps follow the calendar: Jan 31 + P1M is Feb 29 in a leap year)."""
function timeline(initial_ms::Integer, step, n::Integer; first::Integer = 0)
    out = Vector{Int64}(undef, n)
    n == 0 && return out
    check(L.tsstore_timeline(Int64(initial_ms), Ref(period(step)), Int64(first), Int64(n), out))
    return out
end

"""
    infer_resolution(timestamps) -> Union{Period,Nothing}

The regular step of two or more strictly increasing timestamps, found by the library: a fixed
period or a whole number of calendar months; `nothing` when the gaps differ.
"""
function infer_resolution(timestamps::AbstractVector)
    ms = Int64[millis(t) for t in timestamps]
    regular, res = Ref{Int32}(0), Ref(NO_PERIOD)
    check(L.tsstore_infer_resolution(ms, length(ms), regular, res))
    return regular[] == 0 ? nothing : dates_period(res[])
end

# ---- dtypes and arrays ------------------------------------------------------------------

"""Julia element type of each dtype code (TSSTORE_DTYPE_F64 = 0 … TSSTORE_DTYPE_BOOL = 5)."""
const DTYPES = (Float64, Float32, Int64, Int32, UInt64, Bool)

function dtype_code(::Type{T}) where {T}
    i = findfirst(==(T), DTYPES)
    i === nothing && throw(ArgumentError("tsstore stores Float64, Float32, Int64, Int32, UInt64 and Bool arrays, " *
                                         "not $T; convert the data first"))
    return Int32(i - 1)
end

dtype_of(code::Integer) = 0 <= code < length(DTYPES) ? DTYPES[code+1] :
    throw(InternalError("the library returned dtype code $code, which this binding does not know"))

"""A dense Array of data (a copy only when data is not one already)."""
dense(data::Array) = data
dense(data::AbstractArray{T}) where {T} = Array{T}(data)

"""The store shape of a Julia array: its dimensions reversed (see the README)."""
store_shape(a::AbstractArray) = Int64[reverse(size(a))...]

"""The first ndim entries of a shape the library filled (an NTuple of TSSTORE_MAX_RANK)."""
shape_of(shape::NTuple, ndim::Integer) = Int[shape[i] for i in 1:ndim]

"""A Julia array of the store shape `shape` (dimensions reversed), uninitialised: the library
fills it."""
new_array(dtype::Integer, shape::AbstractVector) = Array{dtype_of(dtype)}(undef, reverse(Tuple(shape))...)

# ---- strings -----------------------------------------------------------------------------

"""A text argument: nothing is NULL; a NUL character is refused."""
cstr(::Nothing) = Ptr{UInt8}(C_NULL)
function cstr(s::AbstractString)
    occursin('\0', s) && throw(InvalidParameterError("text \"$(escape_string(s))\" contains a NUL character"))
    return String(s)
end

"""An optional text argument checked as cstr does, kept as a String (or nothing)."""
opt_text(::Nothing) = nothing
opt_text(s::AbstractString) = cstr(s)

"""The pointer a struct field takes for a String (or NULL for nothing). The String must be
GC.@preserve'd while the library reads it."""
ptr(::Nothing) = Ptr{Cchar}(C_NULL)
ptr(s::String) = Ptr{Cchar}(pointer(s))

"""A string field the library filled (NULL as "")."""
text_field(p::Ptr{Cchar}) = p == C_NULL ? "" : unsafe_string(p)

"""Runs a (buf, capacity, *needed) call: once for the size, once to fill."""
function read_text(f)
    needed = Ref{Csize_t}(0)
    sized(f(Ptr{Cchar}(C_NULL), 0, needed))
    for _ in 1:4  # the text can grow in between (a store's last error is shared by its threads)
        buf = Vector{UInt8}(undef, 2 * max(Int(needed[]), 1))
        status = GC.@preserve buf f(Ptr{Cchar}(pointer(buf)), length(buf), needed)
        status == L.TSSTORE_E_BUFFER_TOO_SMALL && continue
        check(status)
        return String(buf[1:max(Int(needed[]), 1)-1])
    end
    throw(BufferTooSmallError("text kept growing while it was read"))
end

# ---- features: arrays of tsstore_feature, both ways ------------------------------------
#
# The library takes and hands back features as typed arrays, so no JSON is written or parsed
# here (the one feature parser is the library's, for C programs' JSON).

const FeatureValue = Union{AbstractString,Integer,AbstractFloat,Bool}

"""
The features of a call as the library takes them: a `tsstore_feature` per entry and the
Strings their pointers name, kept alive with it. `nothing` (no FeatureArg) means "any"; an
empty one means "none".
"""
struct FeatureArg
    feats::Vector{L.tsstore_feature}
    strings::Vector{String}
    n::Int
end

"""The FeatureArg of a features Dict or NamedTuple; nothing for nothing."""
feature_arg(::Nothing) = nothing
function feature_arg(f)
    strings = String[]
    feats = L.tsstore_feature[]
    for (k, v) in pairs(f)
        v isa FeatureValue || throw(ArgumentError("feature $k: values are strings, integers, floats or booleans, not $(typeof(v))"))
        name = cstr(string(k))
        push!(strings, name)
        push!(feats, feature_struct(name, v, strings))
    end
    n = length(feats)
    n == 0 && push!(feats, L.tsstore_feature())  # a non-NULL array of none: "no features"
    return FeatureArg(feats, strings, n)
end

feature_struct(name::String, v::Bool, _) =
    L.tsstore_feature(; kind = L.TSSTORE_FEATURE_BOOL, name = ptr(name), int_value = Int64(v))
function feature_struct(name::String, v::Integer, _)
    typemin(Int64) <= v <= typemax(Int64) ||
        throw(InvalidParameterError("features[$(repr(name))]: $v does not fit a signed 64-bit integer"))
    return L.tsstore_feature(; kind = L.TSSTORE_FEATURE_INT, name = ptr(name), int_value = Int64(v))
end
feature_struct(name::String, v::AbstractFloat, _) =
    L.tsstore_feature(; kind = L.TSSTORE_FEATURE_FLOAT, name = ptr(name), float_value = Float64(v))
function feature_struct(name::String, v::AbstractString, strings)
    s = cstr(v)
    push!(strings, s)
    return L.tsstore_feature(; kind = L.TSSTORE_FEATURE_STR, name = ptr(name), str_value = ptr(s))
end

"""The pointer and count a struct's features fields take (C_NULL and 0 for "any")."""
feature_fields(::Nothing) = (Ptr{L.tsstore_feature}(C_NULL), Csize_t(0))
feature_fields(a::FeatureArg) = (pointer(a.feats), Csize_t(a.n))

"""The Dict of features[n] the library handed out (read now: the array is the store's or a
list's)."""
function features_from(p::Ptr{L.tsstore_feature}, n::Integer)
    out = Dict{String,Any}()
    for i in 1:Int(n)
        f = unsafe_load(p, i)
        out[text_field(f.name)] = feature_value(f)
    end
    return out
end

function feature_value(f::L.tsstore_feature)
    f.kind == L.TSSTORE_FEATURE_INT && return f.int_value
    f.kind == L.TSSTORE_FEATURE_FLOAT && return f.float_value
    f.kind == L.TSSTORE_FEATURE_BOOL && return f.int_value != 0
    f.kind == L.TSSTORE_FEATURE_STR && return text_field(f.str_value)
    throw(InternalError("the library returned feature kind $(f.kind), which this binding does not know"))
end
