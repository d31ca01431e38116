# A float feature another writer stored as NaN, which SQLite keeps as NULL (docs/format.md
# §13.3): the store is made by writing {x: 0.0} and {x: 0.5} through TsStore.jl, then
# turning the 0.5 set into what the other implementation writes for {x: NaN} with the sqlite3
# shell (a NULL value_float under the hash of {x: NaN}, computed here from the spec).

function with_nan_feature(path)
    TsStore.create(path) do s
        for (x, data) in ((0.0, [1.0, 2.0, 3.0]), (0.5, [7.0, 8.0, 9.0]))
            add_time_series!(s, SingleTimeSeries("p", T0, Hour(1), data); owner_id = 1, owner_type = "G",
                             features = Dict("x" => x))
        end
    end
    nan = bytes2hex(features_hash(Dict("x" => NaN)))
    half = bytes2hex(features_hash(Dict("x" => 0.5)))
    run(`sqlite3 $(path * ".sqlite") "UPDATE time_series_associations SET features_hash = X'$nan' WHERE features_hash = X'$half'; UPDATE feature_sets SET value_float = NULL, features_hash = X'$nan' WHERE features_hash = X'$half';"`)
    return path
end

@testset "a NaN feature another writer stored reads as its own series" begin
    path = with_nan_feature(tmpstore())
    TsStore.open(path; read_only = true) do s
        keys = list_keys(s)
        @test length(keys) == 2
        nan_key = only(filter(k -> isnan(k.features["x"]), keys))
        zero_key = only(filter(k -> k.features["x"] === 0.0, keys))
        @test get_time_series(s, nan_key).data == [7.0, 8.0, 9.0]
        @test get_time_series(s, zero_key).data == [1.0, 2.0, 3.0]
        @test nan_key == nan_key && nan_key != zero_key
        # By owner and name, with the feature as IS.jl users pass it.
        @test get_time_series(s, 1, "p"; x = NaN).data == [7.0, 8.0, 9.0]
        @test get_time_series(s, 1, "p"; x = 0.0).data == [1.0, 2.0, 3.0]
        @test_throws InvalidParameterError get_time_series(s, 1, "p")  # two match: ambiguous
        @test has_time_series(s, nan_key)
        @test [k.features["x"] for k in list_keys(s; features = Dict("x" => NaN))] |> only |> isnan
        @test [w.data for w in get_many(s, [zero_key, nan_key])] == [[1.0, 2.0, 3.0], [7.0, 8.0, 9.0]]
        StaticReader(s, Hour(1), [zero_key, nan_key]) do r
            @test values(read_step!(r, 3)) == [3.0, 9.0]
        end
    end
    TsStore.open(path) do s
        remove_time_series!(s, SingleTimeSeries, 1, "p"; x = 0.0)
        @test_throws NotFoundError get_time_series(s, 1, "p"; x = 0.0)  # never the NaN series
        @test get_time_series(s, 1, "p").data == [7.0, 8.0, 9.0]
        # This build writes no NaN feature: refused, naming the feature, nothing stored.
        err = try
            add_time_series!(s, hourly("q", [1.0]); owner_id = 2, owner_type = "G", features = Dict("x" => NaN))
        catch e
            e
        end
        @test err isa InvalidParameterError && occursin("features[\"x\"]: NaN cannot be stored", err.msg)
        @test err.arg == "TSSTORE_ARG_FEATURES" && err.detail == "x" && err.item === nothing
        @test !has_time_series(s, SingleTimeSeries, 2, "q")
    end
end
