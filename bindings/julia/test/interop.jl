# Interoperability from Julia, driven by check_interop.py (which compares what this prints with
# what other tools read):
#
#   julia interop.jl read STORE.nc    reads every series of the conformance store and prints them
#                                     as JSON, each array in the store's axis order
#   julia interop.jl write STORE.nc   writes a store of every series type, the values a function
#                                     of their position, for Python and the format checks to read
using Dates, TsStore

# The store's axis order of a Julia array (whose dimensions are the store's reversed), nested.
nested(a::AbstractVector) = collect(a)
nested(a::AbstractArray) = [nested(collect(selectdim(a, ndims(a), i))) for i in 1:size(a, ndims(a))]

json(io, x::AbstractVector) = (print(io, "["); for (i, v) in enumerate(x); i > 1 && print(io, ","); json(io, v); end; print(io, "]"))
json(io, x::AbstractFloat) = isfinite(x) ? print(io, repr(Float64(x))) : print(io, "null")
json(io, x::Bool) = print(io, x ? 1 : 0)
json(io, x::Integer) = print(io, x)
json(io, x::AbstractString) = print(io, '"', x, '"')  # ISO timestamps only: nothing to escape
json(io, x::DateTime) = json(io, Dates.format(x, dateformat"yyyy-mm-ddTHH:MM:SS.sss") * "Z")
function json(io, d::AbstractDict)
    print(io, "{")
    for (i, (k, v)) in enumerate(sort(collect(d); by = first))
        i > 1 && print(io, ",")
        json(io, String(k)); print(io, ":"); json(io, v)
    end
    print(io, "}")
end

function read_conformance(path)
    out = Dict{String,Any}()
    TsStore.open(path; read_only = true) do s
        get(T, owner, name; kw...) = get_time_series(s, T, owner, name; kw...)
        for owner in 1:3
            feats = owner == 2 ? (model_year = 2030, scenario = "high") : NamedTuple()
            out["load$(owner - 1)"] = nested(get(SingleTimeSeries, owner, "max_active_power"; feats...).data)
        end
        out["attribute10"] = nested(get(SingleTimeSeries, 10, "max_active_power";
                                        owner_category = SUPPLEMENTAL_ATTRIBUTE).data)
        out["cost"] = nested(get(SingleTimeSeries, 20, "variable_cost").data)
        out["cost2"] = nested(get(SingleTimeSeries, 21, "variable_cost").data)
        outage = get(NonSequentialTimeSeries, 30, "outage")
        out["outage"], out["timestamps"] = nested(outage.data), outage.timestamps
        out["det"] = nested(get(Deterministic, 40, "max_active_power").data)
        out["view"] = nested(get(DETERMINISTIC_SINGLE_TIME_SERIES, 1, "max_active_power").data)
        out["monthly"] = nested(get(SingleTimeSeries, 50, "inflow").data)
        out["flags"] = nested(get(SingleTimeSeries, 51, "must_run").data)
        out["grid"] = nested(get(SingleTimeSeries, 52, "tap_matrix"; calibrated = true, weight = 0.5).data)
        prob = get(Probabilistic, 60, "max_active_power")
        out["prob"], out["percentiles"] = nested(prob.data), prob.percentiles
        out["scen"] = nested(get(Scenarios, 61, "max_active_power").data)
    end
    return out
end

# Values that say where they are: step t of series k holds k + t / 1000.
ramp(k, n) = [k + t / 1000 for t in 0:n-1]

function write_store(path)
    TsStore.create(path; compression = "deflate:4:shuffle") do s
        t0 = DateTime(2030)
        add_time_series_bulk!(s, [(ts = SingleTimeSeries("load", t0, Hour(1), ramp(k, 48)), owner_id = k,
                                   owner_type = "PowerLoad", units = "MW") for k in 1:5])
        add_time_series!(s, SingleTimeSeries("cost", t0, Day(1), Float32[c * d for c in 1:3, d in 1:7]);
                         owner_id = 1, owner_type = "ThermalStandard", features = Dict("curve" => "quadratic"))
        add_time_series!(s, SingleTimeSeries("inflow", DateTime(2030, 1, 31), Month(1), Int64.(1:12));
                         owner_id = 2, owner_type = "HydroDispatch")
        add_time_series!(s, NonSequentialTimeSeries("outage", [t0, t0 + Hour(5), t0 + Day(3)], [1.0, 0.0, 1.0]);
                         owner_id = 3, owner_type = "Line")
        add_time_series!(s, Deterministic("wind", t0, Hour(1), Hour(24), Day(1), 4,
                                          [w + h / 100 for w in 1:4, h in 0:23]); owner_id = 4, owner_type = "Wind")
        add_time_series!(s, Probabilistic("wind", t0, Hour(1), Hour(6), Hour(6), 2, [0.1, 0.5, 0.9],
                                          [w + h / 10 + p for w in 1:2, h in 0:5, p in 1:3]);
                         owner_id = 5, owner_type = "Wind")
        add_time_series!(s, SingleTimeSeries("must_run", t0, Hour(1), [isodd(t) for t in 1:24]);
                         owner_id = 6, owner_type = "ThermalStandard", owner_category = SUPPLEMENTAL_ATTRIBUTE)
    end
end

if ARGS[1] == "read"
    json(stdout, read_conformance(ARGS[2]))
    println()
elseif ARGS[1] == "write"
    write_store(ARGS[2])
else
    error("usage: interop.jl read|write STORE.nc")
end
