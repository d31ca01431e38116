# The codes of the header, the series types, keys and lookups.

"""Who owns a series."""
@enum OwnerCategory::Int32 begin
    COMPONENT = L.TSSTORE_OWNER_COMPONENT
    SUPPLEMENTAL_ATTRIBUTE = L.TSSTORE_OWNER_SUPPLEMENTAL_ATTRIBUTE
end

"""Time-series types with their stable codes; ABSTRACT_DETERMINISTIC is request-only (it
selects Deterministic and DeterministicSingleTimeSeries together)."""
@enum SeriesType::Int32 begin
    SINGLE_TIME_SERIES = L.TSSTORE_SINGLE_TIME_SERIES
    NON_SEQUENTIAL_TIME_SERIES = L.TSSTORE_NON_SEQUENTIAL_TIME_SERIES
    DETERMINISTIC = L.TSSTORE_DETERMINISTIC
    DETERMINISTIC_SINGLE_TIME_SERIES = L.TSSTORE_DETERMINISTIC_SINGLE_TIME_SERIES
    PROBABILISTIC = L.TSSTORE_PROBABILISTIC
    SCENARIOS = L.TSSTORE_SCENARIOS
    ABSTRACT_DETERMINISTIC = L.TSSTORE_ABSTRACT_DETERMINISTIC
end

"""Any series the store holds."""
abstract type TimeSeriesData end

"""The forecast types: count windows of horizon / resolution steps, one every interval."""
abstract type Forecast <: TimeSeriesData end

const AnyPeriod = Union{Period,Dates.CompoundPeriod}

# The fields every forecast type begins with, in this order: one list for the three structs
# (Julia has no inheritance of fields), so that they cannot drift apart.
macro forecast_fields()
    return esc(quote
        name::String
        initial_timestamp::DateTime
        resolution::AnyPeriod
        horizon::AnyPeriod
        interval::AnyPeriod
        count::Int
    end)
end

# The values of @forecast_fields from a constructor's arguments, converted to the field types.
forecast_field_values(name, t0, resolution, horizon, interval, count) =
    (String(name), DateTime(t0), to_period(resolution), to_period(horizon), to_period(interval), Int(count))

"""
    SingleTimeSeries(name, initial_timestamp, resolution, data)
    SingleTimeSeries(name, timestamps, data)

A regular series. Time is the **last** dimension of `data` (the store's first axis; see the
README): a `Vector` of T values, or a `3 × T` matrix for three numbers per step. Given
timestamps, the library infers the resolution (a fixed step or whole calendar months); irregular
timestamps are an `ArgumentError` (store them as a NonSequentialTimeSeries).
"""
struct SingleTimeSeries{A<:AbstractArray} <: TimeSeriesData
    name::String
    initial_timestamp::DateTime
    resolution::AnyPeriod
    data::A
    SingleTimeSeries(name::AbstractString, initial_timestamp, resolution::PeriodLike, data::AbstractArray) =
        new{typeof(data)}(String(name), DateTime(initial_timestamp), to_period(resolution), data)
end

function SingleTimeSeries(name::AbstractString, timestamps::AbstractVector{<:Union{DateTime,Date}}, data::AbstractArray)
    length(timestamps) >= 2 || throw(ArgumentError("inferring a resolution needs two timestamps or more; give it"))
    res = infer_resolution(timestamps)
    res === nothing && throw(ArgumentError("the timestamps of \"$name\" are not regular: store them as a " *
                                           "NonSequentialTimeSeries, or give the resolution"))
    return SingleTimeSeries(name, first(timestamps), res, data)
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
    @forecast_fields
    data::A
    Deterministic(name::AbstractString, t0, resolution::PeriodLike, horizon::PeriodLike, interval::PeriodLike,
                  count::Integer, data::AbstractArray) =
        new{typeof(data)}(forecast_field_values(name, t0, resolution, horizon, interval, count)..., data)
end

"""
    Probabilistic(name, initial_timestamp, resolution, horizon, interval, count, percentiles, data)

A quantile forecast: the store's `[P, H, count, *E]` is Julia's `(E..., count, H, P)`.
"""
struct Probabilistic{A<:AbstractArray} <: Forecast
    @forecast_fields
    percentiles::Vector{Float64}
    data::A
    Probabilistic(name::AbstractString, t0, resolution::PeriodLike, horizon::PeriodLike, interval::PeriodLike,
                  count::Integer, percentiles::AbstractVector, data::AbstractArray) =
        new{typeof(data)}(forecast_field_values(name, t0, resolution, horizon, interval, count)...,
                          Float64.(percentiles), data)
end

"""
    Scenarios(name, initial_timestamp, resolution, horizon, interval, count, data)

A scenario forecast: the store's `[S, H, count, *E]` is Julia's `(E..., count, H, S)`.
"""
struct Scenarios{A<:AbstractArray} <: Forecast
    @forecast_fields
    data::A
    Scenarios(name::AbstractString, t0, resolution::PeriodLike, horizon::PeriodLike, interval::PeriodLike,
              count::Integer, data::AbstractArray) =
        new{typeof(data)}(forecast_field_values(name, t0, resolution, horizon, interval, count)..., data)
end

series_type(ts::TimeSeriesData) = series_type(typeof(ts))
series_type(::Type{<:SingleTimeSeries}) = SINGLE_TIME_SERIES
series_type(::Type{<:NonSequentialTimeSeries}) = NON_SEQUENTIAL_TIME_SERIES
series_type(::Type{<:Deterministic}) = DETERMINISTIC
series_type(::Type{<:Probabilistic}) = PROBABILISTIC
series_type(::Type{<:Scenarios}) = SCENARIOS
series_type(t::SeriesType) = t
series_type(T) = throw(ArgumentError("$T is not a series type: give SingleTimeSeries, NonSequentialTimeSeries, " *
                                     "Deterministic, Probabilistic, Scenarios or a SeriesType"))

"""The timestamp of every step of a series, computed by the library (calendar resolutions
clamp to month ends)."""
timestamps(ts::SingleTimeSeries) =
    from_millis.(timeline(millis(ts.initial_timestamp), ts.resolution, size(ts.data, ndims(ts.data))))
timestamps(ts::NonSequentialTimeSeries) = ts.timestamps

"""The start of every window of a forecast, computed by the library."""
window_starts(f::Forecast) = from_millis.(timeline(millis(f.initial_timestamp), f.interval, f.count))

"""
    Key(owner_id, owner_category, series_type, name; resolution=nothing, interval=nothing, features=Dict())

The identity of a stored series. Periods come back from the store as Dates periods in the
largest unit that holds them exactly (`Hour(24)` reads back as `Day(1)`). A key the store
handed out also carries the series' id, a hint that lets the library read it without a
search; it takes no part in equality.
"""
struct Key
    owner_id::Int64
    owner_category::OwnerCategory
    series_type::SeriesType
    name::String
    resolution::Union{Nothing,AnyPeriod}
    interval::Union{Nothing,AnyPeriod}
    features::Dict{String,Any}
    series_id::Int64
end

Key(owner_id::Integer, owner_category::OwnerCategory, series_type::SeriesType, name::AbstractString;
    resolution = nothing, interval = nothing, features = nothing) =
    Key(Int64(owner_id), owner_category, series_type, String(name),
        resolution === nothing ? nothing : to_period(resolution), interval === nothing ? nothing : to_period(interval),
        features === nothing ? Dict{String,Any}() : Dict{String,Any}(string(k) => v for (k, v) in pairs(features)),
        Int64(0))

# Periods compare as the library's periods: Hour(1) and Month(1) differ (no throw), Hour(24) is Day(1).
same_period(a, b) = (a === nothing || b === nothing) ? a === b : period(a) == period(b)

Base.:(==)(a::Key, b::Key) =
    a.owner_id == b.owner_id && a.owner_category == b.owner_category && a.series_type == b.series_type &&
    a.name == b.name && same_period(a.resolution, b.resolution) && same_period(a.interval, b.interval) &&
    isequal(a.features, b.features)  # a NaN feature (docs/format.md §13.3) is itself
Base.hash(k::Key, h::UInt) = hash((k.owner_id, k.owner_category, k.series_type, k.name), h)

"""The key of a tsstore_lookup the library filled (its strings and features read now: they are
the store's or a list's); `features`, when the caller decoded the lookup's set already."""
key_from_lookup(q::L.tsstore_lookup, features = features_from(q.features, q.n_features)) =
    Key(q.owner_id, OwnerCategory(q.owner_category), SeriesType(q.series_type), text_field(q.name),
        dates_period(q.resolution), dates_period(q.interval), features, q.series_id)

# ---- lookups --------------------------------------------------------------------------------

"""
What a call looks up: the Julia side of a `tsstore_lookup` (its strings and features checked and
kept, so that the struct's pointers stay valid for the call). From a Key it names exactly that
series (no features: none) and carries its id hint; from an owner and a name it may leave the
type, periods and features open.
"""
struct Which
    series_type::Int32
    owner_id::Int64
    owner_category::Int32
    name::String
    resolution::L.tsstore_period
    interval::L.tsstore_period
    features::Union{Nothing,FeatureArg}  # nothing: any features
    flags::Int32                         # L.TSSTORE_LOOKUP_EXACT_FEATURES for a held Key
    series_id::Int64                     # a Key's hint, 0 for none
end

# A Key names its own feature set exactly, never a series that has more features.
Which(k::Key) = Which(Int32(k.series_type), k.owner_id, Int32(k.owner_category), cstr(k.name), period(k.resolution),
                      period(k.interval), feature_arg(k.features), L.TSSTORE_LOOKUP_EXACT_FEATURES, k.series_id)

"""
    Which(type, owner_id, name; owner_category=COMPONENT, resolution=nothing, interval=nothing, features)

A lookup by owner and name, as InfrastructureSystems.jl's `get_time_series(T, owner, name;
features...)`: type is a series type (SingleTimeSeries, …) or a SeriesType; features a Dict or
NamedTuple the series' features must include (nothing or empty: any).
"""
Which(T, owner_id::Integer, name::AbstractString; owner_category::OwnerCategory = COMPONENT, resolution = nothing,
      interval = nothing, features = nothing) =
    Which(Int32(series_type(T)), Int64(owner_id), Int32(owner_category), cstr(name), period(resolution),
          period(interval), feature_arg(features), Int32(0), Int64(0))

function lookup_struct(w::Which)
    fp, fn = feature_fields(w.features)
    return L.tsstore_lookup(; series_type = w.series_type, owner_id = w.owner_id, owner_category = w.owner_category,
                            flags = w.flags, name = ptr(w.name), resolution = w.resolution, interval = w.interval,
                            features = fp, n_features = fn, series_id = w.series_id)
end

"""The Julia objects a lookup's (or a feature argument's) pointers name, to GC.@preserve."""
kept(w::Which) = (w.name, kept(w.features)...)
kept(::Nothing) = ()
kept(a::FeatureArg) = (a.feats, a.strings)

"""Runs f(ref) with a Ref{tsstore_lookup} for w, what its pointers name preserved for the call."""
function with_lookup(f, w::Which)
    keep = kept(w)
    return GC.@preserve keep f(Ref(lookup_struct(w)))
end

"""Runs f(lookups) with a Vector{tsstore_lookup} for ws, what their pointers name preserved."""
function with_lookups(f, ws::AbstractVector{Which})
    keep = Any[]
    for w in ws
        append!(keep, kept(w))
    end
    return GC.@preserve keep f(L.tsstore_lookup[lookup_struct(w) for w in ws])
end

"""The features of a lookup by owner and name: the `features` keyword merged with the other
keyword arguments (IS.jl's `features...`)."""
lookup_features(features, rest) = isempty(rest) ? features :
    merge(Dict{String,Any}(string(k) => v for (k, v) in pairs(something(features, Dict()))),
          Dict{String,Any}(string(k) => v for (k, v) in pairs(rest)))

"""The lookup of the calls that take a series by owner and name (`get_time_series(store, T,
owner_id, name; owner_category, resolution, interval, features...)` and its kin): their lookup
keywords, every other keyword a feature."""
function which_named(T, owner_id::Integer, name::AbstractString; owner_category::OwnerCategory = COMPONENT,
                     resolution = nothing, interval = nothing, features = nothing, kw...)
    return Which(T, owner_id, name; owner_category = owner_category, resolution = resolution, interval = interval,
                 features = lookup_features(features, kw))
end

# ---- key lists ------------------------------------------------------------------------------

"""The keys of a C key list, which this frees (their strings are the list's, read before)."""
function keys_from_list(list::Ptr{L.tsstore_keys})
    return infos_from_list(list, info -> key_from_lookup(info.key), Key)
end

"""f of each entry's series_info of a key list (read before the list is freed, with it)."""
function infos_from_list(list::Ptr{L.tsstore_keys}, f, ::Type{T}) where {T}
    try
        n = Ref{Csize_t}(0)
        check(L.tsstore_keys_len(list, n))
        n[] == 0 && return T[]
        infos = fill(L.tsstore_series_info(), Int(n[]))
        check(L.tsstore_keys_get(list, 0, n[], infos))
        return T[f(info) for info in infos]
    finally
        L.tsstore_keys_free(list)
    end
end
