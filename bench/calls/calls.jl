# The Julia side of tsbench's "calls" workload: the same calls as calls.c and calls.py, through
# TsStore.jl, on the store calls.c made. Prints get_us, step_us and has_us (medians, µs) and the
# get by owner and name (get_by_name_us; get_by_name_first_us for each name's first call).
#
#     julia --project=bindings/julia calls.jl STORE.nc N LENGTH REPEATS
using Dates, TsStore

median_us(ns) = sort(ns)[length(ns) ÷ 2 + 1] / 1e3

expected(i) = 50 + 30 * sin((1 + i) / 24)  # step 1 of series i, as calls.c wrote it

function timed(f, repeats)
    f(0)  # compiled before the clock runs
    took = Vector{Float64}(undef, repeats)
    for r in 1:repeats
        t = time_ns()
        f(r)
        took[r] = time_ns() - t
    end
    return median_us(took)
end

function main(path, n, len, repeats)
    keys = [Key(i, COMPONENT, SINGLE_TIME_SERIES, "max_active_power"; resolution = Hour(1)) for i in 0:n-1]
    TsStore.open(path; read_only = true) do s
        foreach(k -> get_time_series(s, k), keys)  # every key read once, as calls.c and calls.py
        get_us = timed(repeats) do r
            i = (r * 7919) % n
            ts = get_time_series(s, keys[i+1])
            abs(ts.data[2] - expected(i)) < 1e-12 || error("calls.jl: series $i read back a wrong value")
        end
        # by owner and name: each name's first call, then again as a loop that rereads
        by_name(i) = get_time_series(s, SingleTimeSeries, i, "max_active_power")
        by_name_first_us = median_us([(t = time_ns(); by_name(i); time_ns() - t) for i in 0:n-1])
        by_name_us = timed(repeats) do r
            i = (r * 7919) % n
            ts = get_time_series(s, SingleTimeSeries, i, "max_active_power")
            abs(ts.data[2] - expected(i)) < 1e-12 || error("calls.jl: series $i read by name back a wrong value")
        end
        step_us = StaticReader(s, Hour(1), keys) do rd
            timed(r -> read_step!(rd, r % len + 1), repeats)
        end
        has_us = timed(repeats) do r
            has_time_series(s, keys[(r*7919)%n+1]) || error("calls.jl: has missed a stored key")
        end
        println("get_us=", round(get_us; digits = 3))
        println("step_us=", round(step_us; digits = 3))
        println("has_us=", round(has_us; digits = 3))
        println("get_by_name_us=", round(by_name_us; digits = 3))
        println("get_by_name_first_us=", round(by_name_first_us; digits = 3))
    end
end

main(ARGS[1], parse(Int, ARGS[2]), parse(Int, ARGS[3]), parse(Int, ARGS[4]))
