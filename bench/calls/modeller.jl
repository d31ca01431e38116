# The Julia side of tsbench's "modeller" workload: modeller.py's script, phase by phase,
# through TsStore.jl, on the same data (each array in Julia's layout: the store's axes
# reversed). Each phase prints its time in seconds, the best of REPEATS runs; the first run
# compiles what the script calls and is not counted when there are several.
#
#     julia --project=bindings/julia modeller.jl DIR BUSES GENS FORECASTS REPEATS
using Dates, TsStore

const T0 = DateTime(2030)
const YEAR_H, WINDOWS, HORIZON = 8760, 365, 48

load_values(i) = Float64.((0:YEAR_H-1) .% 24 .+ i)
cost_values(i) = repeat([1.0, 20.0, 0.01] .* (1 + i), 1, WINDOWS)  # [3, 365]: time last
forecast_values(i) = reshape(collect(0.0:HORIZON*WINDOWS-1) .+ i, WINDOWS, HORIZON)  # data[w, h]

function write_phases(path, buses, gens, forecasts)
    for p in (path, path * ".sqlite")
        isfile(p) && rm(p)
    end
    took = Dict{String,Float64}()
    loads, winds = Key[], Key[]
    # Each phase builds its items before its clock starts, as modeller.go and modeller.py do:
    # the phases time the store's work, not the making of the values.
    TsStore.create(path) do s
        items = [(ts = SingleTimeSeries("max_active_power", T0, Hour(1), load_values(i)),
                  owner_id = i, owner_type = "PowerLoad", units = "MW") for i in 0:buses-1]
        t = time()
        loads = add_time_series_bulk!(s, items)
        flush!(s)
        took["loads"] = time() - t
        items = [(ts = SingleTimeSeries("variable_cost", T0, Day(1), cost_values(i)),
                  owner_id = 100_000 + i, owner_type = "ThermalStandard") for i in 0:gens-1]
        t = time()
        add_time_series_bulk!(s, items)
        flush!(s)
        took["costs"] = time() - t
        items = [(ts = Deterministic("max_active_power", T0, Hour(1), Hour(HORIZON), Day(1), WINDOWS,
                                     forecast_values(i)),
                  owner_id = 200_000 + i, owner_type = "RenewableDispatch") for i in 0:forecasts-1]
        t = time()
        winds = add_time_series_bulk!(s, items)
        flush!(s)
        took["forecasts"] = time() - t
    end
    return took, loads, winds
end

function read_phases(path, loads, winds)
    took = Dict{String,Float64}()
    TsStore.open(path; read_only = true) do s
        t = time()
        step = StaticReader(s, Hour(1), loads) do rd
            for h in 1:168
                read_step!(rd, h)
            end
            copy(values(rd))
        end
        took["week"] = time() - t
        step[8] == 167 % 24 + 7 || error("modeller.jl: the StaticReader read a wrong value")
        t = time()
        window = ForecastReader(s, DETERMINISTIC, Hour(1), winds) do rd
            for w in 1:WINDOWS
                read_window!(rd, w)
            end
            copy(values(rd))
        end
        took["windows"] = time() - t
        # Forecast i's step 5 (0-based) of the last window, as modeller.py checks it: forecast
        # 3, or the last one of a run given fewer.
        i = min(3, length(winds) - 1)
        window[6, i + 1] == 5 * WINDOWS + (WINDOWS - 1) + i || error("modeller.jl: the ForecastReader read a wrong value")
    end
    return took
end

function main(folder, buses, gens, forecasts, repeats)
    mkpath(folder)
    path = joinpath(folder, "jl_modeller.nc")
    best = Dict{String,Float64}()
    for r in 1:repeats+(repeats > 1)  # one run more: the first compiles
        took, loads, winds = write_phases(path, buses, gens, forecasts)
        merge!(took, read_phases(path, loads, winds))
        r == 1 && repeats > 1 && continue
        for (k, v) in took
            best[k] = min(get(best, k, v), v)
        end
    end
    rm(folder; recursive = true, force = true)
    for (k, v) in sort(collect(best))
        println(k, "=", round(v; digits = 6))
    end
end

main(ARGS[1], (parse(Int, a) for a in ARGS[2:5])...)
