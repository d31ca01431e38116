# InfrastructureSystems.jl's getters over a store: what each returns, checked against the
# series as added, and their refusals.

@testset "InfrastructureSystems.jl vocabulary" begin
    TsStore.create(tmpstore(); compression = "deflate:1:noshuffle") do s
        load = collect(1.0:48.0)
        add_time_series!(s, hourly("load", load); owner_id = 1, owner_type = "PowerLoad")
        add_time_series!(s, hourly("load", load .* 2); owner_id = 2, owner_type = "PowerLoad")
        add_time_series!(s, SingleTimeSeries("cost", T0, Day(1), [c * d for c in (1.0, 2.0, 3.0), d in 1:5]);
                         owner_id = 1, owner_type = "ThermalStandard")
        add_time_series!(s, hourly("load", load .+ 0.5); owner_id = 7, owner_type = "Area",
                         owner_category = SUPPLEMENTAL_ATTRIBUTE)
        # Three windows of 6 hourly steps, one every 2 hours: window w, step h holds 10w + h.
        fc = [10.0 * w + h for w in 1:3, h in 1:6]
        add_time_series!(s, Deterministic("wind", T0, Hour(1), Hour(6), Hour(2), 3, fc);
                         owner_id = 9, owner_type = "RenewableDispatch", features = Dict("model" => "a"))

        # Static: len steps from start_time, or the whole series.
        a = get_time_series_array(s, SingleTimeSeries, 1, "load"; start_time = T0 + Hour(3), len = 4)
        @test a.values == load[4:7] && a.timestamps == [T0 + Hour(h) for h in 3:6]
        @test get_time_series_values(s, SingleTimeSeries, 2, "load") == load .* 2
        @test get_time_series_timestamps(s, SingleTimeSeries, 2, "load") == [T0 + Hour(h) for h in 0:47]
        cost = get_time_series_values(s, SingleTimeSeries, 1, "cost"; start_time = T0 + Day(1), len = 2)
        @test cost == [c * d for c in (1.0, 2.0, 3.0), d in 2:3]  # three numbers per step, time last
        key = only(list_keys(s; owner_id = 2, name = "load"))
        @test get_time_series_values(s, key; len = 2) == [2.0, 4.0]

        # Forecast: one window (vectors), or count windows (a row per window), len steps each.
        w = get_time_series_array(s, Deterministic, 9, "wind"; start_time = T0 + Hour(2), len = 4, model = "a")
        @test w.values == [21.0, 22.0, 23.0, 24.0] && w.timestamps == [T0 + Hour(h) for h in 2:5]
        @test get_time_series_values(s, Deterministic, 9, "wind") == fc[1, :]
        ws = get_time_series_array(s, Deterministic, 9, "wind"; start_time = T0 + Hour(2), count = 2, len = 3)
        @test ws.values == fc[2:3, 1:3]
        @test ws.timestamps == [T0 + Hour(2 * (w - 1) + h) for w in 2:3, h in 0:2]

        # get_time_series with start and stop reads a forecast's windows, as Python's does.
        part = get_time_series(s, Deterministic, 9, "wind"; start = T0 + Hour(2), stop = T0 + Hour(4))
        @test part isa Deterministic && part.count == 2 && part.data == fc[2:3, :] && part.initial_timestamp == T0 + Hour(2)
        @test get_time_series(s, Deterministic, 9, "wind"; start = T0 + Hour(4)).data == fc[3:3, :]
        @test get_time_series(s, Deterministic, 9, "wind"; stop = T0 + Hour(2)).data == fc[1:2, :]

        # Refusals name the argument.
        @test_throws ArgumentError get_time_series_values(s, SingleTimeSeries, 1, "load"; len = 49)
        @test_throws ArgumentError get_time_series_values(s, SingleTimeSeries, 1, "load"; len = 0)
        @test_throws ArgumentError get_time_series_values(s, SingleTimeSeries, 1, "load"; count = 2)
        @test_throws ArgumentError get_time_series_values(s, Deterministic, 9, "wind"; len = 7)
        e = try
            get_time_series_values(s, SingleTimeSeries, 1, "load"; start_time = T0 + Minute(30))
        catch err
            err
        end
        @test e isa ArgumentError && occursin("start_time", e.msg)
        @test_throws InvalidParameterError get_time_series_values(s, Deterministic, 9, "wind"; start_time = T0 + Hour(1))
        @test_throws NotFoundError get_time_series_values(s, SingleTimeSeries, 3, "load")

        # get_time_series_multiple: IS.jl's filters, and a filter function.
        @test length(get_time_series_multiple(s)) == 5
        loads = get_time_series_multiple(s; type = SingleTimeSeries, name = "load")
        @test [ts.data for ts in loads] == [load, load .* 2, load .+ 0.5]
        @test length(get_time_series_multiple(s; resolution = Day(1))) == 1
        big = get_time_series_multiple(s, ts -> maximum(ts.data) > 60; type = SingleTimeSeries)
        @test [maximum(ts.data) for ts in big] == [96.0]
        @test only(get_time_series_multiple(s; type = Deterministic)).data == fc

        # Records with the listing, and the arrays several series share.
        records = list_metadata(s; name = "load")
        @test [r.key for r in records] == list_keys(s; name = "load")
        @test records == [get_metadata(s, k) for k in list_keys(s; name = "load")]
        @test records[1].units === nothing && records[1].owner_type == "PowerLoad" && records[1].length == 48 && records[3].key.owner_category == SUPPLEMENTAL_ATTRIBUTE
        @test isempty(shared_arrays(s))
        again = add_time_series!(s, hourly("load", load); owner_id = 11, owner_type = "PowerLoad")
        shared = shared_arrays(s)
        first_load = only(list_keys(s; owner_id = 1, name = "load"))
        @test length(shared) == 1 && only(values(shared)) == [first_load, again]
        remove_time_series!(s, again)

        # Counts and the forecast parameters the store's forecasts share.
        @test get_time_series_counts(s) == (components_with_time_series = 3,
                                            supplemental_attributes_with_time_series = 1,
                                            static_time_series_count = 4, forecast_count = 1)
        @test get_forecast_horizon(s) == Hour(6) && get_forecast_interval(s) == Hour(2)
        @test get_forecast_window_count(s) == 3 && get_forecast_initial_timestamp(s) == T0
        @test get_forecast_initial_times(s) == [T0, T0 + Hour(2), T0 + Hour(4)]
        add_time_series!(s, Deterministic("wind", T0, Hour(1), Hour(4), Hour(2), 3, zeros(3, 4));
                         owner_id = 10, owner_type = "RenewableDispatch")
        @test_throws ArgumentError get_forecast_horizon(s)  # two horizons: no one answer
        @test get_forecast_interval(s) == Hour(2)

        # begin_time_series_update: all or nothing.
        @test_throws ErrorException begin_time_series_update(s) do st
            add_time_series!(st, hourly("temp", zeros(3)); owner_id = 1, owner_type = "PowerLoad")
            error("the update fails half way")
        end
        @test isempty(list_keys(s; name = "temp"))
        begin_time_series_update(s) do st
            add_time_series!(st, hourly("temp", ones(3)); owner_id = 1, owner_type = "PowerLoad")
        end
        @test get_time_series_values(s, SingleTimeSeries, 1, "temp") == ones(3)
    end
    TsStore.create(tmpstore()) do s  # an empty store
        @test get_forecast_horizon(s) === nothing && get_forecast_initial_times(s) == DateTime[]
        @test get_time_series_counts(s).forecast_count == 0
    end
end
