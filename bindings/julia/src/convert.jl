# Conversions between Julia values and the library's: timestamps, periods, dtypes, features,
# strings and caller-filled buffers.

const EPOCH = DateTime(1970)

"""Unix milliseconds of a DateTime (UTC) or Date."""
millis(t::DateTime) = Dates.value(t - EPOCH)
millis(d::Date) = millis(DateTime(d))
millis(x) = throw(ArgumentError("a timestamp is a Dates.DateTime or Date, not $(typeof(x))"))

"""The DateTime of Unix milliseconds."""
from_millis(ms::Integer) = EPOCH + Millisecond(ms)

"""What a period argument may be: a Dates period, a compound one, or an ISO-8601 string."""
const PeriodLike = Union{Period,Dates.CompoundPeriod,AbstractString}

const FIXED = Union{Week,Day,Hour,Minute,Second,Millisecond}

"""The ISO-8601 duration the library takes ("PT1H", "P1D", "P1M")."""
iso(p::AbstractString) = String(p)
iso(p::Month) = "P$(Dates.value(p))M"
iso(p::Quarter) = "P$(3 * Dates.value(p))M"
iso(p::Year) = "P$(Dates.value(p))Y"
iso(p::FIXED) = iso_fixed(Int64(Dates.toms(p)))
iso(p::Period) = throw(ArgumentError("tsstore periods are whole milliseconds, not $p"))
function iso(p::Dates.CompoundPeriod)
    months, ms = 0, Int64(0)
    for q in p.periods
        if q isa Year
            months += 12 * Dates.value(q)
        elseif q isa Quarter
            months += 3 * Dates.value(q)
        elseif q isa Month
            months += Dates.value(q)
        elseif q isa FIXED
            ms += Dates.toms(q)
        else
            throw(ArgumentError("tsstore periods are whole milliseconds, not $q"))
        end
    end
    months == 0 && return iso_fixed(ms)
    ms == 0 && return "P$(months)M"
    throw(ArgumentError("$p mixes calendar and fixed parts; the store keeps them apart"))
end

function iso_fixed(ms::Int64)
    ms < 0 && return "-" * iso_fixed(-ms)
    days, rest = divrem(ms, 86_400_000)
    hours, rest = divrem(rest, 3_600_000)
    minutes, rest = divrem(rest, 60_000)
    seconds, msec = divrem(rest, 1000)
    out = "P" * (days != 0 ? "$(days)D" : "")
    time = (hours != 0 ? "$(hours)H" : "") * (minutes != 0 ? "$(minutes)M" : "")
    if seconds != 0 || msec != 0
        frac = msec == 0 ? "" : rstrip("." * lpad(string(msec), 3, '0'), '0')
        time *= "$(seconds)$(frac)S"
    end
    isempty(time) || (out *= "T" * time)
    return out == "P" ? "PT0S" : out
end

const ISO_PERIOD = r"^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)(?:\.(\d+))?S)?)?$"

"""The Dates period of an ISO-8601 duration ("PT1H" → Hour(1), "P1M" → Month(1)); several
parts give a Dates.CompoundPeriod."""
function parse_period(s::AbstractString)
    startswith(s, "-") && return -parse_period(s[2:end])
    m = match(ISO_PERIOD, s)
    (m === nothing || s == "P" || endswith(s, "T")) && throw(ArgumentError("not an ISO-8601 duration: \"$s\""))
    y, mo, w, d, h, mi, sec, frac = m.captures
    parts = Period[]
    y === nothing || push!(parts, Year(parse(Int, y)))
    mo === nothing || push!(parts, Month(parse(Int, mo)))
    w === nothing || push!(parts, Week(parse(Int, w)))
    d === nothing || push!(parts, Day(parse(Int, d)))
    h === nothing || push!(parts, Hour(parse(Int, h)))
    mi === nothing || push!(parts, Minute(parse(Int, mi)))
    if sec !== nothing  # fractional seconds as one Millisecond period
        ms = 1000 * parse(Int, sec) + (frac === nothing ? 0 : parse(Int, rpad(frac, 3, '0')[1:3]))
        push!(parts, ms % 1000 == 0 ? Second(ms ÷ 1000) : Millisecond(ms))
    end
    isempty(parts) && return Millisecond(0)
    return length(parts) == 1 ? parts[1] : Dates.CompoundPeriod(parts)
end

to_period(p::AbstractString) = parse_period(p)
to_period(p::Union{Period,Dates.CompoundPeriod}) = p

"""Julia element type of each dtype code (format-details §1)."""
const DTYPES = (Float64, Float32, Int64, Int32, UInt64, Bool)

function dtype_code(::Type{T}) where {T}
    i = findfirst(==(T), DTYPES)
    i === nothing && throw(ArgumentError("tsstore stores Float64, Float32, Int64, Int32, UInt64 and Bool arrays, " *
                                         "not $T; convert the data first"))
    return Int32(i - 1)
end

"""A dense Array of data (a copy only when data is not one already)."""
dense(data::Array) = data
dense(data::AbstractArray{T}) where {T} = Array{T}(data)

"""The store shape of a Julia array: its dimensions reversed (see the README)."""
store_shape(a::AbstractArray) = Int64[reverse(size(a))...]

"""A text argument: nothing is NULL; a NUL character is refused."""
cstr(::Nothing) = Ptr{UInt8}(C_NULL)
function cstr(s::AbstractString)
    occursin('\0', s) && throw(InvalidParameterError("text \"$(escape_string(s))\" contains a NUL character"))
    return String(s)
end

"""Runs a (buf, capacity, *needed) call: once for the size, once to fill."""
function read_text(f, args...)
    needed = Ref{Csize_t}(0)
    check(f(args..., Ptr{UInt8}(C_NULL), 0, needed))
    for _ in 1:4  # the text can grow in between (a store's last error is shared by its threads)
        buf = Vector{UInt8}(undef, 2 * max(needed[], 1))
        status = f(args..., buf, length(buf), needed)
        status == status_code(BufferTooSmallError) && continue
        check(status)
        return String(buf[1:max(needed[], 1)-1])
    end
    throw(BufferTooSmallError("text kept growing while it was read"))
end

# ---- features: a flat JSON object of strings, integers, floats and booleans ---------------

const FeatureValue = Union{AbstractString,Integer,AbstractFloat,Bool}

function json_string(s::AbstractString)
    io = IOBuffer()
    print(io, '"')
    for c in s
        if c == '"' || c == '\\'
            print(io, '\\', c)
        elseif c < ' '
            print(io, "\\u", lpad(string(UInt32(c), base = 16), 4, '0'))
        else
            print(io, c)
        end
    end
    print(io, '"')
    return String(take!(io))
end

json_value(v::Bool) = v ? "true" : "false"
json_value(v::Integer) = string(v)
function json_value(v::AbstractFloat)
    isfinite(v) || throw(InvalidParameterError("feature value $v is not a finite number"))
    return repr(Float64(v))
end
json_value(v::AbstractString) = json_string(v)

"""The JSON object of a features dict (nothing or empty: NULL)."""
function features_json(f)
    (f === nothing || isempty(f)) && return Ptr{UInt8}(C_NULL)
    parts = String[]
    for (k, v) in pairs(f)  # a Dict or a NamedTuple
        v isa FeatureValue || throw(ArgumentError("feature $k: values are strings, integers, floats or booleans, not $(typeof(v))"))
        push!(parts, json_string(string(k)) * ":" * json_value(v))
    end
    return "{" * join(parts, ",") * "}"
end

"""Parses the flat JSON object the library returns for a key's features."""
function parse_features(s::AbstractString)
    out = Dict{String,Any}()
    i = skipws(s, 1)
    (i <= ncodeunits(s) && s[i] == '{') || throw(ArgumentError("features are not a JSON object: $s"))
    i = skipws(s, i + 1)
    s[i] == '}' && return out
    while true
        key, i = parse_json_string(s, skipws(s, i))
        i = skipws(s, i)
        s[i] == ':' || throw(ArgumentError("bad features JSON: $s"))
        value, i = parse_json_value(s, skipws(s, i + 1))
        out[key] = value
        i = skipws(s, i)
        s[i] == '}' && return out
        s[i] == ',' || throw(ArgumentError("bad features JSON: $s"))
        i += 1
    end
end

function skipws(s, i)
    while i <= ncodeunits(s) && s[i] in (' ', '\t', '\n', '\r')
        i = nextind(s, i)
    end
    return i
end

function parse_json_string(s, i)
    s[i] == '"' || throw(ArgumentError("bad features JSON: $s"))
    io = IOBuffer()
    i = nextind(s, i)
    while s[i] != '"'
        if s[i] == '\\'
            i = nextind(s, i)
            c = s[i]
            if c == 'u'
                code = parse(UInt32, s[i+1:i+4], base = 16)
                print(io, Char(code))
                i += 4
            else
                print(io, get(Dict('n' => '\n', 't' => '\t', 'r' => '\r', 'b' => '\b', 'f' => '\f'), c, c))
            end
        else
            print(io, s[i])
        end
        i = nextind(s, i)
    end
    return String(take!(io)), nextind(s, i)
end

function parse_json_value(s, i)
    s[i] == '"' && return parse_json_string(s, i)
    startswith(SubString(s, i), "true") && return true, i + 4
    startswith(SubString(s, i), "false") && return false, i + 5
    j = i
    while j <= ncodeunits(s) && (isdigit(s[j]) || s[j] in ('-', '+', '.', 'e', 'E'))
        j += 1
    end
    text = s[i:j-1]
    v = occursin(r"[.eE]", text) ? parse(Float64, text) : parse(Int64, text)
    return v, j
end
