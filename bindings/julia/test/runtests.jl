# The TsStore.jl test suite: round trips of every type and dtype, errors from real bad input,
# readers, associations, queries, lifetimes. Run with bindings/julia/test/run.sh (make test's
# group julia: a Julia provided, 2 threads), or by hand:
#   TSSTORE_LIBRARY=/path/to/libtsstore.so julia --project=bindings/julia --threads=2 bindings/julia/test/runtests.jl
using Test
using Dates
using TsStore

include("hashes.jl")

const T0 = DateTime(2024, 1, 1)

tmpstore() = joinpath(mktempdir(), "system.nc")
hourly(name, data; t0 = T0) = SingleTimeSeries(name, t0, Hour(1), data)

@testset "TsStore" begin
    @testset "periods and timestamps: units here, text and timelines from the library" begin
        L = TsStore.LibTsStore
        @test TsStore.period(Hour(1)) == L.tsstore_period(3_600_000, L.TSSTORE_PERIOD_MILLIS, 0)
        @test TsStore.period(Year(1)) == L.tsstore_period(12, L.TSSTORE_PERIOD_MONTHS, 0)
        @test TsStore.period(nothing).unit == L.TSSTORE_PERIOD_NONE
        @test TsStore.period("P1D") == TsStore.period(Day(1)) == TsStore.period(Hour(24))
        @test_throws ArgumentError TsStore.period(Microsecond(1500))
        @test TsStore.iso(Hour(1)) == "PT1H"
        @test TsStore.iso(Day(1)) == "P1D"
        @test TsStore.iso(Minute(90)) == "PT1H30M"
        @test TsStore.iso(Millisecond(1500)) == "PT1.5S"
        @test TsStore.iso(Month(1)) == "P1M"
        @test TsStore.iso(Quarter(1)) == "P3M"
        @test TsStore.iso(Year(2)) == "P2Y"
        @test TsStore.iso(Hour(1) + Minute(30)) == "PT1H30M"
        @test_throws ArgumentError TsStore.iso(Month(1) + Day(1))
        @test TsStore.parse_period("PT1H") == Hour(1)
        @test TsStore.parse_period("P1M") == Month(1)
        @test TsStore.parse_period("PT0.25S") === Millisecond(250)
        @test TsStore.parse_period("PT1.5S") === Millisecond(1500)
        @test TsStore.parse_period("PT30S") === Second(30)
        @test TsStore.parse_period("PT90M") === Minute(90)
        @test TsStore.parse_period("P1Y2M") === Month(14)
        @test TsStore.parse_period("P2Y") === Year(2)
        @test TsStore.parse_period("P7D") === Day(7)
        @test_throws InvalidParameterError TsStore.parse_period("1 hour")  # the library's grammar
        # Timelines: t0 + i × step in one jump, calendar steps clamping to month ends.
        jan31 = DateTime(2024, 1, 31)
        @test TsStore.from_millis.(TsStore.timeline(TsStore.millis(jan31), Month(1), 3)) ==
              [jan31, DateTime(2024, 2, 29), DateTime(2024, 3, 31)]
        @test TsStore.from_millis.(TsStore.timeline(TsStore.millis(T0), Hour(1), 2; first = 3)) == [T0 + Hour(3), T0 + Hour(4)]
        @test timestamps(hourly("p", zeros(3, 4))) == [T0 + Hour(i) for i in 0:3]
        @test window_starts(Deterministic("f", T0, Hour(1), Hour(4), Day(1), 3, zeros(3, 4))) == [T0, T0 + Day(1), T0 + Day(2)]
        @test infer_resolution([T0, T0 + Minute(15), T0 + Minute(30)]) == Minute(15)
        @test infer_resolution([DateTime(2024, 1, 31), DateTime(2024, 2, 29), DateTime(2024, 3, 31)]) == Month(1)
        @test infer_resolution([T0, T0 + Hour(1), T0 + Hour(3)]) === nothing
        inferred = SingleTimeSeries("p", [T0 + Day(i) for i in 0:4], collect(1.0:5.0))
        @test inferred.resolution == Day(1) && inferred.initial_timestamp == T0
        @test_throws ArgumentError SingleTimeSeries("p", [T0, T0 + Hour(1), T0 + Hour(3)], zeros(3))
        @test TsStore.from_millis(TsStore.millis(DateTime(1950, 6, 1, 12))) == DateTime(1950, 6, 1, 12)
        # Features travel as typed arrays both ways: no JSON on this side.
        fa = TsStore.feature_arg(Dict("scenario" => "high \"x\"", "year" => 2030, "w" => 0.5, "on" => true,
                                      "cap" => Inf, "nan" => NaN))
        back = GC.@preserve fa TsStore.features_from(TsStore.feature_fields(fa)...)
        @test isequal(back, Dict{String,Any}("scenario" => "high \"x\"", "year" => 2030, "w" => 0.5, "on" => true,
                                             "cap" => Inf, "nan" => NaN))
        @test back["on"] === true && back["year"] === 2030
        @test TsStore.feature_fields(nothing) == (Ptr{TsStore.LibTsStore.tsstore_feature}(C_NULL), 0)
        none = TsStore.feature_arg(Dict())
        @test TsStore.feature_fields(none)[1] != C_NULL && TsStore.feature_fields(none)[2] == 0  # "none", not "any"
        @test_throws TsStore.InvalidParameterError TsStore.feature_arg(Dict("big" => typemax(UInt64)))
        @test_throws TsStore.InvalidParameterError TsStore.feature_arg(Dict("a\0b" => 1))
    end

    @testset "every dtype and element shape round-trips" begin
        for T in (Float64, Float32, Int64, Int32, UInt64, Bool), eshape in ((), (3,))
            path = tmpstore()
            data = T == Bool ? rand(Bool, eshape..., 48) : rand(T(0):T(100), eshape..., 48)
            if T <: AbstractFloat
                data[1] = NaN
            end
            key = TsStore.create(path) do s
                add_time_series!(s, hourly("p", data); owner_id = 1, owner_type = "Gen", units = "MW")
            end
            ts = TsStore.open(path; read_only = true) do s
                get_time_series(s, key)
            end
            @test ts isa SingleTimeSeries
            @test size(ts.data) == size(data) && eltype(ts.data) == T
            @test isequal(ts.data, data)  # NaN equals NaN here
            @test ts.initial_timestamp == T0 && ts.resolution == Hour(1)
        end
    end

    @testset "[3]-per-step layout: time is the last dimension" begin
        path = tmpstore()
        cost = [10.0 * h + c for c in 1:3, h in 1:24]  # 3 × 24: column h is step h
        TsStore.create(path) do s
            k = add_time_series!(s, hourly("cost", cost); owner_id = 5, owner_type = "Thermal")
            m = get_metadata(s, k)
            @test m.length == 24 && m.element_shape == (3,)
            got = get_time_series(s, k; start = T0 + Hour(2), stop = T0 + Hour(3))
            @test got.data == cost[:, 3:4]
        end
    end

    @testset "keys, ranges, lists, removal" begin
        TsStore.create(tmpstore()) do s
            k = add_time_series!(s, hourly("max_active_power", collect(1.0:48.0)); owner_id = 7,
                                 owner_type = "PowerLoad", features = Dict("scenario" => "high", "model_year" => 2030))
            @test k == Key(7, COMPONENT, SINGLE_TIME_SERIES, "max_active_power"; resolution = Hour(1),
                           features = Dict("scenario" => "high", "model_year" => 2030))
            @test has_time_series(s, k)
            @test get_time_series(s, k; start = T0 + Hour(2), stop = T0 + Hour(4)).data == [3.0, 4.0, 5.0]
            @test get_time_series(s, k; start = T0 + Hour(46)).data == [47.0, 48.0]
            stamps = [T0, T0 + Minute(450)]
            add_time_series!(s, NonSequentialTimeSeries("outage", stamps, [1.0, 0.5]); owner_id = 9, owner_type = "Line")
            a = add_time_series!(s, hourly("p", zeros(24)); owner_id = 9, owner_type = "Outage",
                                 owner_category = SUPPLEMENTAL_ATTRIBUTE)
            @test [x.owner_id for x in list_keys(s; owner_type = "PowerLoad")] == [7]
            @test [x.name for x in list_keys(s; name_glob = "max_*")] == ["max_active_power"]
            @test length(list_keys(s; features = Dict("scenario" => "high"))) == 1
            @test list_keys(s; owner_category = SUPPLEMENTAL_ATTRIBUTE) == [a]
            @test length(list_keys(s; owner_id = 9)) == 2  # either category
            ns = get_time_series(s, first(list_keys(s; series_type = NON_SEQUENTIAL_TIME_SERIES)))
            @test ns.timestamps == stamps
            # Lookups by owner and name, as IS.jl users write them: features as keywords.
            @test get_time_series(s, SingleTimeSeries, 7, "max_active_power"; scenario = "high").data == collect(1.0:48.0)
            @test get_time_series(s, 7, "max_active_power"; resolution = Hour(1)).data == collect(1.0:48.0)
            @test get_time_series(s, 7, "max_active_power"; features = Dict("model_year" => 2030),
                                  start = T0 + Hour(1), stop = T0 + Hour(2)).data == [2.0, 3.0]
            @test has_time_series(s, SingleTimeSeries, 7, "max_active_power"; model_year = 2030)
            @test !has_time_series(s, SingleTimeSeries, 7, "max_active_power"; scenario = "low")
            @test_throws NotFoundError get_time_series(s, SingleTimeSeries, 7, "max_active_power"; scenario = "low")
            @test_throws NotFoundError get_time_series(s, Deterministic, 7, "max_active_power")
            @test get_time_series(s, NonSequentialTimeSeries, 9, "outage").timestamps == stamps
            @test get_time_series(s, SingleTimeSeries, 9, "p"; owner_category = SUPPLEMENTAL_ATTRIBUTE).data == zeros(24)
            @test get_metadata(s, SingleTimeSeries, 7, "max_active_power").key == k
            @test get_timestamps(s, k; start = T0 + Hour(2), stop = T0 + Hour(4)) == [T0 + Hour(h) for h in 2:4]
            @test get_timestamps(s, first(list_keys(s; series_type = NON_SEQUENTIAL_TIME_SERIES))) == stamps
            remove_time_series!(s, k)
            @test !has_time_series(s, k)
            @test remove_time_series_where!(s; owner_category = SUPPLEMENTAL_ATTRIBUTE) == 1
            @test isempty(list_keys(s; owner_category = SUPPLEMENTAL_ATTRIBUTE))
            @test remove_time_series_where!(s; name = "absent") == 0
        end
    end

    @testset "forecasts whole, by window, and their layout" begin
        det = reshape(collect(1.0:20.0), 5, 4)      # (count, H): 5 windows of 4 steps
        prob = rand(Float32, 5, 4, 3)               # (count, H, P)
        TsStore.create(tmpstore()) do s
            dk = add_time_series!(s, Deterministic("p", T0, Hour(1), Hour(4), Hour(2), 5, det); owner_id = 1,
                                  owner_type = "Wind")
            pk = add_time_series!(s, Probabilistic("p", T0, Hour(1), Hour(4), Hour(2), 5, [0.1, 0.5, 0.9], prob);
                                  owner_id = 2, owner_type = "Wind")
            sk = add_time_series!(s, Scenarios("p", T0, Hour(1), Hour(4), Hour(2), 5, prob); owner_id = 3,
                                  owner_type = "Wind")
            w = get_windows(s, dk, T0 + Hour(2), T0 + Hour(4))
            @test w isa Deterministic && w.count == 2 && w.horizon == Hour(4) && w.interval == Hour(2)
            @test w.data == det[2:3, :]
            p = get_time_series(s, pk)
            @test p.percentiles == [0.1, 0.5, 0.9] && p.data == prob
            @test get_time_series(s, Probabilistic, 2, "p"; interval = Hour(2)).percentiles == [0.1, 0.5, 0.9]
            @test window_starts(w) == [T0 + Hour(2), T0 + Hour(4)]
            @test get_timestamps(s, dk) == [T0 + Hour(2i) for i in 0:4]
            @test get_time_series(s, sk) isa Scenarios
            @test_throws InvalidParameterError get_windows(s, dk, T0 + Hour(1))
        end
    end

    @testset "bulk add, transactions, transform, maintenance" begin
        path = tmpstore()
        TsStore.create(path) do s
            items = [(ts = hourly("p", collect(0.0:47.0) .+ i), owner_id = i, owner_type = "PowerLoad") for i in 0:19]
            keys = add_time_series_bulk!(s, items)
            @test [k.owner_id for k in keys] == collect(0:19)
            @test_throws DuplicateTimeSeriesError bulk_add(s) do b
                add_time_series!(b, hourly("p", zeros(48)); owner_id = 100, owner_type = "PowerLoad")
                add_time_series!(b, hourly("p", zeros(48)); owner_id = 0, owner_type = "PowerLoad")
            end
            @test isempty(list_keys(s; owner_id = 100))
            @test_throws ErrorException transaction(s) do st
                add_time_series!(st, hourly("t", zeros(24)); owner_id = 500, owner_type = "X")
                error("roll back")
            end
            @test isempty(list_keys(s; owner_id = 500))
            transaction(st -> add_time_series!(st, hourly("t", zeros(24)); owner_id = 501, owner_type = "X"), s)
            @test length(list_keys(s; owner_id = 501)) == 1
            @test transform_single_time_series!(s, Day(1), Hour(12); resolution = Hour(1)) == 21
            @test transform_single_time_series!(s, Day(1), Hour(12); resolution = Hour(1)) == 0
            view = get_time_series(s, Key(3, COMPONENT, ABSTRACT_DETERMINISTIC, "p"; resolution = Hour(1),
                                          interval = Hour(12)))
            @test view isa Deterministic && view.data[2, :] == collect(12.0:35.0) .+ 3
            @test get_time_series(s, ABSTRACT_DETERMINISTIC, 3, "p").data == view.data
            report = verify_integrity(s)
            @test isempty(report.problems) && report.arrays_checked == 21
            @test compact!(s).datasets_dropped == 0
            @test !check_static_consistency(s)  # "t" has 24 steps, the "p" series 48: two grids
            @test compact!(s; rewrite = true).datasets_dropped == 0
            @test get_time_series(s, ABSTRACT_DETERMINISTIC, 3, "p").data == view.data  # open on the new pair
        end
    end

    @testset "readers fill arrays allocated once" begin
        TsStore.create(tmpstore()) do s
            keys = add_time_series_bulk!(s, [(ts = hourly("p", collect(0.0:71.0) .+ 1000i), owner_id = i,
                                              owner_type = "PowerLoad") for i in 0:29])
            whole = get_many(s, keys)
            @test [w.data[2] for w in whole[1:3]] == [1.0, 1001.0, 2001.0]
            StaticReader(s, Hour(1), keys) do rd
                @test length(rd) == 72
                @test timestamps(rd) == [T0 + Hour(i) for i in 0:71]
                buf = rd.groups[1].values
                for (i, (t, r)) in enumerate(rd)
                    @test t == T0 + Hour(i - 1)
                    @test values(r) == collect(0:29) .* 1000.0 .+ (i - 1)
                    @test r.groups[1].values === buf  # refilled, not reallocated
                end
                @test_throws InvalidParameterError read_at!(rd, T0 + Minute(30))
            end
            rev = StaticReader(s, Hour(1), reverse(keys))
            read_step!(rev, 4)
            @test values(rev) == reverse(collect(0:29) .* 1000.0 .+ 3)
            close(rev)
            close(rev)
            @test_throws InvalidHandleError read_step!(rev, 1)
            @test transform_single_time_series!(s, Hour(24), Hour(24)) == 30
            fkeys = [Key(i, COMPONENT, ABSTRACT_DETERMINISTIC, "p"; resolution = Hour(1), interval = Day(1)) for i in 0:29]
            ForecastReader(s, ABSTRACT_DETERMINISTIC, Hour(1), fkeys) do fr
                @test length(fr) == 3
                read_at!(fr, T0 + Day(2))
                w = values(fr)
                @test size(w) == (24, 30)
                @test w[:, 6] == collect(48.0:71.0) .+ 5000
                @test [t for (t, _) in fr] == [T0, T0 + Day(1), T0 + Day(2)]
            end
        end
    end

    @testset "associations, queries, owner moves" begin
        TsStore.create(tmpstore()) do s
            k = add_time_series!(s, hourly("max_active_power", collect(1.0:24.0)); owner_id = 1,
                                 owner_type = "ThermalStandard", units = "MW", features = Dict("zone" => 2))
            add_supplemental_attribute_associations!(s, [(1, "ThermalStandard", 10, "GeographicInfo"),
                                                         (2, "PowerLoad", 10, "GeographicInfo")])
            @test_throws DuplicateAssociationError add_supplemental_attribute_associations!(s, [(1, "Other", 10, "Other")])
            @test has_supplemental_attribute_association(s, 2, 10)
            @test [r[1] for r in list_supplemental_attribute_associations(s; attribute_ids = [10])] == [1, 2]
            @test isempty(list_supplemental_attribute_associations(s; component_ids = Int[]))
            add_supplemental_attribute_associations!(s, [(2, "PowerLoad", 11, "GeographicInfo")])
            @test list_component_ids_with_attributes(s; attribute_ids = [10]) == [1, 2]
            @test list_component_ids_with_attributes(s) == [1, 2]
            @test list_attribute_ids_of_components(s; component_ids = [2]) == [10, 11]
            @test list_attribute_ids_of_components(s; component_ids = [1]) == [10]
            remove_supplemental_attribute_associations!(s; attribute_ids = [11])
            @test supplemental_attribute_association_counts(s) == (rows = 2, components = 2, attributes = 1)
            add_parent_child_associations!(s, [(40, "ThermalStandard", 99, "ACBus")])
            @test children_of(s, 40) == [99] && parents_of(s, 99) == [40]
            @test replace_parent_child_id!(s, 99, 98) == 1 && children_of(s, 40) == [98]
            @test remove_supplemental_attribute_associations!(s; component_type = "PowerLoad") == 1
            meta = get_metadata(s, k)
            @test meta.units == "MW" && meta.length == 24 && meta.series_type == SINGLE_TIME_SERIES
            @test length(meta.data_hash) == 64 && meta.key == k
            @test count_by_hash(s, meta.data_hash) == Dict(SINGLE_TIME_SERIES => 1)
            @test get_array(s, meta.data_hash) == collect(1.0:24.0)
            copy = copy_time_series!(s, k; owner_id = 7, owner_type = "ACBus")
            @test copy.owner_id == 7 && copy.features == Dict{String,Any}("zone" => 2)
            @test keys_by_hash(s, meta.data_hash) == [k, copy]
            @test count_arrays(s) == 1
            renamed = rename_time_series!(s, copy, "p2")
            @test replace_owner_id!(s, 7, 70) == 1
            @test !has_time_series(s, renamed)
            @test counts_by_type(s) == Dict(SINGLE_TIME_SERIES => 2)
            @test list_names(s) == ["max_active_power", "p2"]
            @test list_owner_types(s) == ["ACBus", "ThermalStandard"]
            @test list_resolutions(s) == [Hour(1)]
            add_time_series!(s, Deterministic("f", T0, Hour(1), Hour(2), Hour(2), 2, zeros(2, 2)); owner_id = 3,
                             owner_type = "Wind")
            (params,) = forecast_parameters(s)
            @test params.count == 2 && params.horizon == Hour(2) && params.initial_timestamp == T0
            @test only(static_summary(s)).series == 2
        end
    end

    @testset "errors from real bad input" begin
        path = tmpstore()
        TsStore.create(path) do s
            k = add_time_series!(s, hourly("p", collect(1.0:4.0)); owner_id = 1, owner_type = "G")
            @test_throws DuplicateTimeSeriesError add_time_series!(s, hourly("p", collect(1.0:4.0)); owner_id = 1,
                                                                   owner_type = "G")
            err = try
                add_time_series!(s, SingleTimeSeries("p", T0, "1 hour", [1.0]); owner_id = 2, owner_type = "G")
            catch e
                e
            end
            @test err isa InvalidParameterError  # "1 hour" is not ISO-8601: the library's parser says so
            @test occursin("1 hour", err.msg)
            @test_throws InvalidParameterError add_time_series!(s, hourly("p", [1.0]); owner_id = 2, owner_type = "G",
                                                                features = Dict("units" => "MW"))
            @test_throws InvalidParameterError add_time_series!(s, hourly("a\0b", [1.0]); owner_id = 2, owner_type = "G")
            @test_throws ArgumentError add_time_series!(s, hourly("p", Int8[1, 2]); owner_id = 2, owner_type = "G")
            @test_throws NotFoundError get_time_series(s, Key(9, COMPONENT, SINGLE_TIME_SERIES, "p"; resolution = Hour(1)))
            e = try
                get_time_series(s, Key(9, COMPONENT, SINGLE_TIME_SERIES, "p"; resolution = Hour(1)))
            catch x
                x
            end
            @test occursin("9", e.msg)  # the library's message names the key
        end
        TsStore.open(path; read_only = true) do s
            @test_throws ReadOnlyError remove_time_series!(s, first(list_keys(s)))
            @test store_recovered(s) == ""  # nothing to roll back: no writer died
        end
        @test_throws InvalidParameterError TsStore.create(path)
        @test_throws NotFoundError TsStore.open(path * ".missing")
    end

    @testset "empty results" begin
        TsStore.create(tmpstore()) do s
            @test isempty(list_keys(s)) && isempty(list_names(s)) && isempty(list_intervals(s))
            @test isempty(list_supplemental_attribute_associations(s)) && isempty(children_of(s, 1))
            @test isempty(counts_by_type(s)) && count_arrays(s) == 0
            @test isempty(forecast_parameters(s)) && isempty(static_summary(s))
            @test verify_integrity(s).problems == String[]
        end
    end

    @testset "lifetimes" begin
        s = TsStore.create(tmpstore())
        @test isopen(s)
        close(s)
        close(s)
        @test !isopen(s)
        @test_throws InvalidHandleError list_keys(s)
        m = TsStore.in_memory()
        k = add_time_series!(m, hourly("p", collect(1.0:24.0)); owner_id = 1, owner_type = "G")
        out = tmpstore()
        persist(m, out)
        close(m)
        TsStore.open(out; read_only = true) do s
            @test get_time_series(s, k).data == collect(1.0:24.0)
        end
        let
            # Unreachable while open: the finalizers close the reader and the store.
            lost = TsStore.create(tmpstore())
            keys = add_time_series_bulk!(lost, [(ts = hourly("p", zeros(24)), owner_id = i, owner_type = "G") for i in 1:3])
            StaticReader(lost, Hour(1), keys)
            lost = nothing
        end
        GC.gc()
        GC.gc()
        @test Key(1, COMPONENT, SINGLE_TIME_SERIES, "p"; resolution = Hour(1)) !=
              Key(1, COMPONENT, SINGLE_TIME_SERIES, "p"; resolution = Month(1))  # no throw
        @test Key(1, COMPONENT, SINGLE_TIME_SERIES, "p"; resolution = Hour(24)) ==
              Key(1, COMPONENT, SINGLE_TIME_SERIES, "p"; resolution = Day(1))
        @test Key(1, COMPONENT, SINGLE_TIME_SERIES, "p"; features = (zone = 2,)).features == Dict{String,Any}("zone" => 2)
    end

    @testset "tasks share one store" begin
        @test Threads.nthreads() > 1  # test/run.sh starts julia with --threads=2
        TsStore.create(tmpstore()) do s
            tasks = Task[]
            for t in 1:6
                task = Threads.@spawn begin
                    for i in 1:30
                        k = add_time_series!(s, hourly("p", collect(0.0:23.0) .+ (100t + i)); owner_id = 1000t + i,
                                             owner_type = "G")
                        @assert get_time_series(s, k).data[1] == 100t + i
                    end
                end
                push!(tasks, task)
            end
            foreach(wait, tasks)
            @test length(list_keys(s)) == 180
        end
    end

    include("nan_feature.jl")
    include("boundary.jl")
    include("vocabulary.jl")

    @testset "the library" begin
        @test TsStore.library_version() ÷ 100 == TsStore.LibTsStore.TSSTORE_VERSION_NUMBER ÷ 100
        @test TsStore.status_name(2) == "TSSTORE_E_NOT_FOUND"
    end
end
