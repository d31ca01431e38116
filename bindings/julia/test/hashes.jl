# The format's content hashes (docs/format.md §6), computed here from the spec with SHA.jl and
# not through the library, so that tests can check what the library stores and finds.

using SHA

u64le(v::Integer) = reinterpret(UInt8, [htol(UInt64(v))])

"""The features hash of a map of floats (§6.2): "features" NUL, the entry count, then per key
in byte order its length, its bytes, the tag 'f' and the f64's bits (NaN canonical)."""
function features_hash(features::AbstractDict{String,Float64})
    bytes = UInt8[codeunits("features\0")...]
    append!(bytes, u64le(length(features)))
    for k in sort!(collect(keys(features)))
        v = features[k]
        append!(bytes, u64le(ncodeunits(k)))  # (one collection per append!: Julia 1.5's)
        append!(bytes, codeunits(k))
        push!(bytes, UInt8('f'))
        append!(bytes, u64le(isnan(v) ? 0x7ff8000000000000 : reinterpret(UInt64, v)))
    end
    return sha256(bytes)
end
