# What the C boundary (v0.3) hands this binding: the keys an add stored, a read by owner and
# name in one call, and refusals that name the Julia argument from the library's codes.

@testset "the boundary: stored keys, one-call reads, refusals by code" begin
    TsStore.create(tmpstore()) do s
        keys = add_time_series_bulk!(s, [(ts = hourly("p", collect(1.0:24.0) .+ i), owner_id = i, owner_type = "G",
                                          features = Dict("zone" => i % 2)) for i in 1:3])
        @test keys == list_keys(s)  # what the library stored is what it lists
        @test all(k -> k.series_id > 0, keys) && length(unique(k.series_id for k in keys)) == 3
        one = add_time_series!(s, hourly("q", zeros(3)); owner_id = 9, owner_type = "G")
        @test one.series_id > 0 && one == only(list_keys(s; name = "q"))

        # The first read of "p" learns its size; the next read of a "p" is then one C call,
        # as the library's own per-call log counts them.
        @test get_time_series(s, 1, "p"; zone = 1).data == collect(1.0:24.0) .+ 1
        lines = String[]
        TsStore.set_log_callback(line -> push!(lines, line))
        try
            @test get_time_series(s, 2, "p"; zone = 0).data == collect(1.0:24.0) .+ 2
        finally
            TsStore.set_log_callback(nothing)
        end
        calls = filter(l -> occursin(r"^tsstore: tsstore_\w+: ", l), lines)
        @test length(calls) == 1 && startswith(only(calls), "tsstore: tsstore_get: ")

        # A bad item of a batch: its position (1-based), the argument, the detail.
        err = try
            add_time_series_bulk!(s, [(ts = hourly("r", zeros(2)), owner_id = 1, owner_type = "G"),
                                      (ts = hourly("r", zeros(2)), owner_id = 2, owner_type = "G",
                                       features = Dict("units" => 1))])
        catch e
            e
        end
        @test err isa InvalidParameterError && err.item == 2 && err.arg == "TSSTORE_ARG_FEATURES" && err.detail == "units"
        @test startswith(err.msg, "add_time_series_batch: items[2]: features[\"units\"]: ")
        @test !occursin("descs", err.msg) && !occursin("features_json", err.msg)  # the C spelling stays out
        @test isempty(list_keys(s; name = "r"))
        err = try
            get_time_series(s, 5, "p")
        catch e
            e
        end
        @test err isa NotFoundError && err.arg == "TSSTORE_ARG_LOOKUP" && occursin("Component 5", err.reason)
        @test err.msg == "get_time_series: " * err.reason
    end
end

@testset "refusals name every argument the Julia way" begin
    # Every code has a spelling: a Julia argument, "" where the reason names the thing
    # itself, else the library's own name; none is left out or blank by mistake.
    for (code, name, _) in TsStore.LibTsStore.ARGS
        spelled = TsStore.julia_argument("get_time_series", name, nothing, "")
        blank = name in ("TSSTORE_ARG_NONE", "TSSTORE_ARG_LOOKUP", "TSSTORE_ARG_SERIES", "TSSTORE_ARG_FILTER")
        @test isempty(spelled) == blank
    end
    @test TsStore.julia_argument("get_time_series", "TSSTORE_ARG_STEP", nothing, "") == "step"
    @test TsStore.julia_argument("get_time_series", "TSSTORE_ARG_BUFFER", nothing, "") == "dst"
    TsStore.create(tmpstore()) do s
        add_time_series!(s, hourly("p", zeros(3)); owner_id = 1, owner_type = "G")
        StaticReader(s, Hour(1), list_keys(s)) do rd
            err = try
                read_step!(rd, 9)
            catch e
                e
            end
            @test err isa InvalidParameterError && occursin(": step: ", err.msg)
        end
    end
end

# A read offers the buffer the last read of its name and type needed: one of another length,
# dtype or shape than the series read now takes the sized second call, and every read still
# returns its own series.
@testset "reads of one name whose length, dtype and shape differ" begin
    TsStore.create(tmpstore()) do s
        series = [collect(1.0:24.0), collect(1.0:48.0), Int32.(1:24), reshape(collect(1.0:72.0), 3, 24),
                  collect(1.0:12.0), Float32.(1:6)]
        keys = [add_time_series!(s, hourly("p", d); owner_id = i, owner_type = "G") for (i, d) in enumerate(series)]
        for order in (1:6, 6:-1:1, [1, 3, 1, 4, 5, 2, 2, 6])
            for i in order
                got = get_time_series(s, keys[i]).data
                @test got == series[i] && eltype(got) == eltype(series[i]) && size(got) == size(series[i])
                byname = get_time_series(s, i, "p").data
                @test byname == series[i] && eltype(byname) == eltype(series[i])
            end
        end
    end
end
