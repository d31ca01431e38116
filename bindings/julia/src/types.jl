# Codes of format-details §1–§2, the series types and keys.

"""Who owns a series (format-details §2)."""
@enum OwnerCategory::Int32 COMPONENT = 0 SUPPLEMENTAL_ATTRIBUTE = 1

"""Time-series types with their stable codes; ABSTRACT_DETERMINISTIC is request-only (it
selects Deterministic and DeterministicSingleTimeSeries together)."""
@enum SeriesType::Int32 begin
    SINGLE_TIME_SERIES = 0
    NON_SEQUENTIAL_TIME_SERIES = 1
    DETERMINISTIC = 2
    DETERMINISTIC_SINGLE_TIME_SERIES = 3
    PROBABILISTIC = 4
    SCENARIOS = 5
    ABSTRACT_DETERMINISTIC = 6
end

"""Any series the store holds."""
abstract type TimeSeriesData end

"""The forecast types: count windows of horizon / resolution steps, one every interval."""
abstract type Forecast <: TimeSeriesData end

const AnyPeriod = Union{Period,Dates.CompoundPeriod}

"""
    SingleTimeSeries(name, initial_timestamp, resolution, data)

A regular series. Time is the **last** dimension of `data` (the store's first axis; see the
README): a `Vector` of T values, or a `3 × T` matrix for three numbers per step.
"""
struct SingleTimeSeries{A<:AbstractArray} <: TimeSeriesData
    name::String
    initial_timestamp::DateTime
    resolution::AnyPeriod
    data::A
    SingleTimeSeries(name::AbstractString, initial_timestamp, resolution::PeriodLike, data::AbstractArray) =
        new{typeof(data)}(String(name), DateTime(initial_timestamp), to_period(resolution), data)
end

"""
    NonSequentialTimeSeries(name, timestamps, data)

An irregular series: one strictly increasing timestamp per step (the last dimension of data).
"""
struct NonSequentialTimeSeries{A<:AbstractArray} <: TimeSeriesData
    name::String
    timestamps::Vector{DateTime}
    data::A
    NonSequentialTimeSeries(name::AbstractString, timestamps::AbstractVector, data::AbstractArray) =
        new{typeof(data)}(String(name), DateTime.(timestamps), data)
end

"""
    Deterministic(name, initial_timestamp, resolution, horizon, interval, count, data)

A point forecast. The store's `[H, count, *E]` is Julia's `(E..., count, H)`: `data[w, h]` is
step h of window w for scalar steps.
"""
struct Deterministic{A<:AbstractArray} <: Forecast
    name::String
    initial_timestamp::DateTime
    resolution::AnyPeriod
    horizon::AnyPeriod
    interval::AnyPeriod
    count::Int
    data::A
    Deterministic(name::AbstractString, t0, resolution::PeriodLike, horizon::PeriodLike, interval::PeriodLike,
                  count::Integer, data::AbstractArray) =
        new{typeof(data)}(String(name), DateTime(t0), to_period(resolution), to_period(horizon), to_period(interval),
                          Int(count), data)
end

"""
    Probabilistic(name, initial_timestamp, resolution, horizon, interval, count, percentiles, data)

A quantile forecast: the store's `[P, H, count, *E]` is Julia's `(E..., count, H, P)`.
"""
struct Probabilistic{A<:AbstractArray} <: Forecast
    name::String
    initial_timestamp::DateTime
    resolution::AnyPeriod
    horizon::AnyPeriod
    interval::AnyPeriod
    count::Int
    percentiles::Vector{Float64}
    data::A
    Probabilistic(name::AbstractString, t0, resolution::PeriodLike, horizon::PeriodLike, interval::PeriodLike,
                  count::Integer, percentiles::AbstractVector, data::AbstractArray) =
        new{typeof(data)}(String(name), DateTime(t0), to_period(resolution), to_period(horizon), to_period(interval),
                          Int(count), Float64.(percentiles), data)
end

"""
    Scenarios(name, initial_timestamp, resolution, horizon, interval, count, data)

A scenario forecast: the store's `[S, H, count, *E]` is Julia's `(E..., count, H, S)`.
"""
struct Scenarios{A<:AbstractArray} <: Forecast
    name::String
    initial_timestamp::DateTime
    resolution::AnyPeriod
    horizon::AnyPeriod
    interval::AnyPeriod
    count::Int
    data::A
    Scenarios(name::AbstractString, t0, resolution::PeriodLike, horizon::PeriodLike, interval::PeriodLike,
              count::Integer, data::AbstractArray) =
        new{typeof(data)}(String(name), DateTime(t0), to_period(resolution), to_period(horizon), to_period(interval),
                          Int(count), data)
end

series_type(::SingleTimeSeries) = SINGLE_TIME_SERIES
series_type(::NonSequentialTimeSeries) = NON_SEQUENTIAL_TIME_SERIES
series_type(::Deterministic) = DETERMINISTIC
series_type(::Probabilistic) = PROBABILISTIC
series_type(::Scenarios) = SCENARIOS

"""
    Key(owner_id, owner_category, series_type, name; resolution=nothing, interval=nothing, features=Dict())

The identity of a stored series. Periods come back from the store as Dates periods in the
store's canonical form (`Hour(24)` reads back as `Day(1)`).
"""
struct Key
    owner_id::Int64
    owner_category::OwnerCategory
    series_type::SeriesType
    name::String
    resolution::Union{Nothing,AnyPeriod}
    interval::Union{Nothing,AnyPeriod}
    features::Dict{String,Any}
end

Key(owner_id::Integer, owner_category::OwnerCategory, series_type::SeriesType, name::AbstractString;
    resolution = nothing, interval = nothing, features = nothing) =
    Key(Int64(owner_id), owner_category, series_type, String(name),
        resolution === nothing ? nothing : to_period(resolution), interval === nothing ? nothing : to_period(interval),
        features === nothing ? Dict{String,Any}() : Dict{String,Any}(string(k) => v for (k, v) in pairs(features)))

# Periods compare by their ISO form: Hour(1) == Month(1) would throw, and Hour(24) is Day(1).
same_period(a, b) = (a === nothing || b === nothing) ? a === b : iso(a) == iso(b)

Base.:(==)(a::Key, b::Key) =
    a.owner_id == b.owner_id && a.owner_category == b.owner_category && a.series_type == b.series_type &&
    a.name == b.name && same_period(a.resolution, b.resolution) && same_period(a.interval, b.interval) &&
    a.features == b.features
Base.hash(k::Key, h::UInt) = hash((k.owner_id, k.owner_category, k.series_type, k.name), h)

"""Runs f with a C key handle for k, freed afterwards."""
function with_key(f, k::Key)
    out = Ref{Ptr{L.tsstore_key}}(C_NULL)
    check(L.tsstore_key_new(k.owner_id, Int32(k.owner_category), Int32(k.series_type), cstr(k.name),
                            k.resolution === nothing ? cstr(nothing) : iso(k.resolution),
                            k.interval === nothing ? cstr(nothing) : iso(k.interval), features_json(k.features), out))
    try
        return f(out[])
    finally
        L.tsstore_key_free(out[])
    end
end

"""The key a C key handle holds."""
function key_from_handle(h::Ptr{L.tsstore_key})
    owner, cat, typ = Ref{Int64}(0), Ref{Int32}(0), Ref{Int32}(0)
    check(L.tsstore_key_owner(h, owner, cat))
    check(L.tsstore_key_series_type(h, typ))
    name = read_text(L.tsstore_key_name, h)
    res, iv = read_text(L.tsstore_key_resolution, h), read_text(L.tsstore_key_interval, h)
    return Key(owner[], OwnerCategory(cat[]), SeriesType(typ[]), name, isempty(res) ? nothing : parse_period(res),
               isempty(iv) ? nothing : parse_period(iv), parse_features(read_text(L.tsstore_key_features, h)))
end

"""The keys of a C key list, which this frees."""
function keys_from_list(list::Ptr{L.tsstore_keys})
    try
        n = Ref{Csize_t}(0)
        check(L.tsstore_keys_len(list, n))
        keys = Vector{Key}(undef, n[])
        for i in 1:n[]
            kh = Ref{Ptr{L.tsstore_key}}(C_NULL)
            check(L.tsstore_keys_get(list, i - 1, kh))
            try
                keys[i] = key_from_handle(kh[])
            finally
                L.tsstore_key_free(kh[])
            end
        end
        return keys
    finally
        L.tsstore_keys_free(list)
    end
end
