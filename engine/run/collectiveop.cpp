#include "engine/run/collectiveop.h"

#include <cctype>
#include <string>

namespace clusterscope::engine {

namespace {
    // Lower case without underscores, dashes, spaces and an "nccl" / "nccl:" / "c10d::" prefix.
    std::string normalise(std::string_view name)
    {
        std::string s;
        s.reserve(name.size());
        for (char c : name) {
            if (c == '_' || c == '-' || c == ' ')
                continue;
            s.push_back(char(std::tolower(static_cast<unsigned char>(c))));
        }
        for (std::string_view prefix : { "c10d::", "nccl:", "nccl", "dist." }) {
            if (s.rfind(prefix, 0) == 0) {
                s.erase(0, prefix.size());
                break;
            }
        }
        return s;
    }

    bool startsWith(const std::string& s, std::string_view p) { return s.rfind(p, 0) == 0; }
}

CollectiveOp parseRunCollectiveOp(std::string_view name)
{
    const std::string s = normalise(name);
    // Most specific first: "reducescatter" before "reduce", "allgather" before "gather".
    if (startsWith(s, "allreduce"))
        return CollectiveOp::AllReduce;
    if (startsWith(s, "reducescatter"))
        return CollectiveOp::ReduceScatter;
    if (startsWith(s, "allgather"))
        return CollectiveOp::AllGather;
    if (startsWith(s, "alltoall"))
        return CollectiveOp::AllToAll;
    if (startsWith(s, "broadcast"))
        return CollectiveOp::Broadcast;
    if (startsWith(s, "reduce"))
        return CollectiveOp::Reduce;
    if (startsWith(s, "gather"))
        return CollectiveOp::Gather;
    if (startsWith(s, "scatter"))
        return CollectiveOp::Scatter;
    if (startsWith(s, "sendrecv") || s == "send" || s == "recv" || startsWith(s, "batchisendirecv") || s == "isend"
        || s == "irecv" || startsWith(s, "p2p"))
        return CollectiveOp::SendRecv;
    if (startsWith(s, "barrier"))
        return CollectiveOp::Barrier;
    return CollectiveOp::Unknown;
}

int dtypeSizeBytes(std::string_view dtype)
{
    std::string s = normalise(dtype);
    if (startsWith(s, "c10::"))
        s.erase(0, 5);
    if (startsWith(s, "nv"))
        s.erase(0, 2); // __nv_bfloat16 -> bfloat16 after normalise dropped the underscores
    static const struct {
        const char* name;
        int size;
    } kTypes[] = {
        { "float", 4 },
        { "float32", 4 },
        { "f32", 4 },
        { "int", 4 },
        { "int32", 4 },
        { "int32t", 4 },
        { "i32", 4 },
        { "uint32", 4 },
        { "uint32t", 4 },
        { "u32", 4 },
        { "unsignedint", 4 },
        { "double", 8 },
        { "float64", 8 },
        { "f64", 8 },
        { "long", 8 },
        { "longint", 8 },
        { "int64", 8 },
        { "int64t", 8 },
        { "i64", 8 },
        { "uint64", 8 },
        { "uint64t", 8 },
        { "u64", 8 },
        { "longlong", 8 },
        { "unsignedlong", 8 },
        { "unsignedlongint", 8 },
        { "half", 2 },
        { "float16", 2 },
        { "f16", 2 },
        { "bfloat16", 2 },
        { "bf16", 2 },
        { "short", 2 },
        { "shortint", 2 },
        { "int16", 2 },
        { "byte", 1 },
        { "char", 1 },
        { "signedchar", 1 },
        { "unsignedchar", 1 },
        { "int8", 1 },
        { "int8t", 1 },
        { "i8", 1 },
        { "uint8", 1 },
        { "uint8t", 1 },
        { "u8", 1 },
        { "bool", 1 },
        { "float8e4m3fn", 1 },
        { "float8e5m2", 1 },
        { "f8e4m3", 1 },
        { "f8e5m2", 1 },
        { "fp8e4m3", 1 },
        { "fp8e5m2", 1 },
    };
    for (const auto& t : kTypes)
        if (s == t.name)
            return t.size;
    return 0;
}

} // namespace clusterscope::engine
