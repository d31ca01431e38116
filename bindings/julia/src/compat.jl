# Stand-ins for the APIs newer than the oldest Julia this package supports ([compat] in
# Project.toml: 1.5, tested here), each defined only where the running Julia lacks it, in the
# manner of Compat.jl. Newer Julias use their own.

# Dates.Quarter (Julia 1.6): the calendar period of three months. The stand-in is a
# DatePeriod that converts to months and steps a DateTime as 3 months, which is all a store
# period needs; TsStore exports it so `Quarter(1)` reads the same on every Julia.
@static if isdefined(Dates, :Quarter)
    const Quarter = Dates.Quarter
else
    struct Quarter <: Dates.DatePeriod
        value::Int64
        Quarter(v::Integer) = new(Int64(v))
    end
    Dates.value(q::Quarter) = q.value
    Base.:+(t::TimeType, q::Quarter) = t + Month(3 * q.value)
    Base.:-(t::TimeType, q::Quarter) = t - Month(3 * q.value)
    Base.show(io::IO, q::Quarter) = print(io, q.value, q.value == 1 ? " quarter" : " quarters")
end
