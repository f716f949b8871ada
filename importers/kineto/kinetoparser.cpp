// Walks a Kineto Chrome-trace JSON with simdjson's On-Demand API (one forward pass; values we do
// not ask for are skipped without being materialised) and collects RawTrace records.

#include "importers/kineto/kinetoparser.h"

#include "importers/kineto/bytesource.h"
#include "importers/kineto/decimaltime.h"
#include "importers/kineto/kinetorecords.h"
#include "importers/kineto/tracejsonsplitter.h"

#include <simdjson.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

namespace clusterscope::importers {

using namespace kineto;
using engine::Status;
namespace od = simdjson::ondemand;

namespace {

    // A field's key as written in the file (escapes are not decoded: the keys we look for have none).
    std::string_view keyOf(od::field& f)
    {
        const char* p = f.key().raw();
        const char* q = static_cast<const char*>(std::memchr(p, '"', 256));
        return q ? std::string_view(p, std::size_t(q - p)) : std::string_view();
    }

    std::string_view trim(std::string_view s)
    {
        while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
            s.remove_suffix(1);
        return s;
    }

    // Reads an integer-valued field that some producers write as a string or a float ("3", 3.0).
    bool readInt(od::value& v, std::int64_t& out)
    {
        std::string_view raw = trim(v.raw_json_token());
        if (!raw.empty() && raw.front() == '"') {
            std::string_view s;
            if (v.get_string().get(s))
                return false;
            raw = s;
        }
        if (auto i = parseInteger(raw)) {
            out = *i;
            return true;
        }
        if (auto ns = parseMicrosecondsAsNs(raw)) { // "3.0": exact, x1000
            out = *ns / 1000;
            return true;
        }
        return false;
    }

    bool readString(od::value& v, std::string& out)
    {
        std::string_view s;
        if (v.get_string().get(s))
            return false;
        out.assign(s);
        return true;
    }

    // pid/tid: integers, or strings in some producers ("Spans", "GPU 0"): strings are hashed.
    std::int64_t readId(od::value& v)
    {
        std::int64_t i = 0;
        if (readInt(v, i))
            return i;
        std::string_view s;
        if (!v.get_string().get(s))
            return std::int64_t(std::hash<std::string_view> {}(s) >> 1);
        return 0;
    }

    // "Process Group Ranks" is text ("[0, 1]") in most versions, an array in some.
    void readListAsText(od::value& v, std::string& out)
    {
        od::json_type t;
        if (v.type().get(t))
            return;
        if (t == od::json_type::string) {
            readString(v, out);
        } else if (t == od::json_type::array) {
            od::array a;
            std::string_view raw;
            if (!v.get_array().get(a) && !a.raw_json().get(raw))
                out.assign(raw);
        }
    }

    struct EventArgs {
        std::int64_t correlation = -1;
        std::int64_t stream = -1;
        std::int64_t device = -1;
        std::int64_t inputElements = -1;
        std::string inputType;
        CollectiveArgs coll;
    };

    // "Input Dims": [[394241], [], ...]: the product of the first tensor's dimensions.
    std::int64_t firstTensorElements(od::value& v)
    {
        od::array outer;
        if (v.get_array().get(outer))
            return -1;
        for (auto first : outer) {
            od::array dims;
            if (first.get_array().get(dims))
                return -1;
            std::int64_t product = 1;
            bool any = false;
            for (auto d : dims) {
                std::int64_t x = 0;
                if (d.get_int64().get(x) || x < 0 || __builtin_mul_overflow(product, x, &product))
                    return -1;
                any = true;
            }
            return any ? product : -1;
        }
        return -1;
    }

    std::string firstString(od::value& v)
    {
        od::array a;
        if (v.get_array().get(a))
            return {};
        for (auto e : a) {
            std::string_view s;
            if (e.get_string().get(s))
                return {};
            return std::string(s);
        }
        return {};
    }

    simdjson::error_code readArgs(od::value& v, EventArgs& a, bool collective)
    {
        od::object o;
        if (auto err = v.get_object().get(o))
            return err;
        for (auto fr : o) {
            od::field f;
            if (auto err = std::move(fr).get(f))
                return err;
            const std::string_view k = keyOf(f);
            od::value& val = f.value();
            if (k == "correlation")
                readInt(val, a.correlation);
            else if (k == "stream")
                readInt(val, a.stream);
            else if (k == "device")
                readInt(val, a.device);
            else if (!collective)
                continue;
            else if (k == "Collective name")
                a.coll.present = readString(val, a.coll.name) || a.coll.present;
            else if (k == "In msg nelems")
                readInt(val, a.coll.inNelems);
            else if (k == "Out msg nelems")
                readInt(val, a.coll.outNelems);
            else if (k == "Group size") {
                std::int64_t g = 0;
                if (readInt(val, g) && g > 0 && g < (1 << 24))
                    a.coll.groupSize = std::int32_t(g);
            } else if (k == "dtype")
                readString(val, a.coll.dtype);
            else if (k == "In split size")
                readListAsText(val, a.coll.inSplit);
            else if (k == "Process Group Name")
                readString(val, a.coll.pgName);
            else if (k == "Process Group Description")
                readString(val, a.coll.pgDescription);
            else if (k == "Process Group Ranks")
                readListAsText(val, a.coll.pgRanks);
            else if (k == "Src Rank" || k == "Dst Rank") {
                std::int64_t r = -1;
                if (readInt(val, r) && r >= 0 && r < (1 << 24))
                    (k == "Src Rank" ? a.coll.srcRank : a.coll.dstRank) = std::int32_t(r);
            } else if (k == "Seq")
                readInt(val, a.coll.seq);
            else if (k == "Input Dims")
                a.inputElements = firstTensorElements(val);
            else if (k == "Input type")
                a.inputType = firstString(val);
        }
        return simdjson::SUCCESS;
    }

    bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

    // Every time the importer keeps is at most 3e18 ns in magnitude (epoch nanoseconds reach it in
    // 2065): baseTimeNanoseconds + ts + dur then stays below INT64_MAX (9.22e18), so the assembler's
    // sums cannot overflow. A value beyond it is not a time a profiler wrote.
    constexpr std::int64_t kMaxTraceNs = 3'000'000'000'000'000'000;

} // namespace

struct KinetoParser::Impl {
    od::parser parser;
    RawTrace raw;
    engine::Diagnostics* diagnostics = nullptr;
    std::string name;
    std::int64_t badTimestamps = 0;

    simdjson::error_code readEvent(od::object& o);
    simdjson::error_code readDistributedInfo(od::value& v);
    simdjson::error_code readDevices(od::value& v);
};

simdjson::error_code KinetoParser::Impl::readEvent(od::object& o)
{
    std::string_view ph, cat, evName;
    std::string_view tsText, durText;
    std::int64_t pid = 0, tid = 0;
    EventArgs args;
    bool argsRead = false;
    enum class Want { Unknown, None, Basic, Collective, Step } want = Want::Unknown;
    // What the args of this event are needed for, once cat (and name) are known.
    auto decide = [&]() {
        if (cat == "kernel")
            return startsWith(evName, "nccl") ? Want::Collective : Want::Basic;
        if (cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "cuda_runtime" || cat == "cuda_driver")
            return Want::Basic;
        if ((cat == "cpu_op" && evName == "record_param_comms")
            || (cat == "user_annotation" && startsWith(evName, "nccl:")))
            return Want::Collective;
        if (cat == "user_annotation" && startsWith(evName, "ProfilerStep#"))
            return Want::Step;
        return Want::None;
    };
    bool haveCat = false, haveName = false;
    for (auto fr : o) {
        od::field f;
        if (auto err = std::move(fr).get(f))
            return err;
        const std::string_view k = keyOf(f);
        od::value& val = f.value();
        if (k == "ph") {
            if (auto err = val.get_string().get(ph))
                return err;
        } else if (k == "cat") {
            if (auto err = val.get_string().get(cat))
                return err;
            haveCat = true;
        } else if (k == "name") {
            if (auto err = val.get_string().get(evName))
                return err;
            haveName = true;
        } else if (k == "ts") {
            tsText = val.raw_json_token();
        } else if (k == "dur") {
            durText = val.raw_json_token();
        } else if (k == "pid") {
            pid = readId(val);
        } else if (k == "tid") {
            tid = readId(val);
        } else if (k == "args") {
            // Args usually come last; if cat/name are still unknown read everything we might need.
            want = (haveCat && haveName) ? decide() : Want::Collective;
            if (want != Want::None && want != Want::Step) {
                if (auto err = readArgs(val, args, want == Want::Collective))
                    return err;
                argsRead = true;
            }
        }
    }
    if (ph != "X")
        return simdjson::SUCCESS;
    want = decide();
    if (want == Want::None)
        return simdjson::SUCCESS;
    const auto ts = parseMicrosecondsAsNs(trim(tsText));
    const auto dur = durText.empty() ? std::optional<std::int64_t>(0) : parseMicrosecondsAsNs(trim(durText));
    if (!ts || !dur || *dur < 0 || *ts > kMaxTraceNs || *ts < -kMaxTraceNs || *dur > kMaxTraceNs) {
        ++badTimestamps;
        return simdjson::SUCCESS;
    }
    (void)argsRead;
    if (want == Want::Step) {
        const auto number = parseInteger(evName.substr(std::string_view("ProfilerStep#").size()));
        if (number) {
            raw.steps.push_back({ *number, *ts, *ts + *dur });
            raw.stepTids.push_back(tid);
        }
        return simdjson::SUCCESS;
    }
    if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
        RawGpuEvent g;
        g.startNs = *ts;
        g.endNs = *ts + *dur;
        g.correlation = args.correlation;
        g.stream = std::int32_t(args.stream >= 0 ? args.stream : tid);
        g.device = std::int32_t(args.device >= 0 ? args.device : pid);
        if (cat == "gpu_memcpy")
            g.kind = engine::GpuActivityKind::Memcpy;
        else if (cat == "gpu_memset")
            g.kind = engine::GpuActivityKind::Memset;
        else if (want == Want::Collective) {
            g.kind = engine::GpuActivityKind::Communication;
            g.ncclIndex = std::int32_t(raw.ncclKernels.size());
            raw.ncclKernels.push_back({ std::string(evName), std::move(args.coll) });
        }
        raw.gpu.push_back(g);
    } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
        if (args.correlation >= 0)
            raw.launches.push_back({ args.correlation, tid, *ts });
    } else {
        RawHostRange h;
        h.tid = tid;
        h.startNs = *ts;
        h.endNs = *ts + *dur;
        h.annotation = cat == "user_annotation";
        h.opName = h.annotation ? std::string(evName.substr(5)) : args.coll.name;
        h.inputElements = args.inputElements;
        h.inputType = std::move(args.inputType);
        h.args = std::move(args.coll);
        raw.hostRanges.push_back(std::move(h));
    }
    return simdjson::SUCCESS;
}

simdjson::error_code KinetoParser::Impl::readDistributedInfo(od::value& v)
{
    od::object o;
    if (auto err = v.get_object().get(o))
        return err;
    for (auto fr : o) {
        od::field f;
        if (auto err = std::move(fr).get(f))
            return err;
        const std::string_view k = keyOf(f);
        od::value& val = f.value();
        std::int64_t i = 0;
        // Out-of-range values are damage: left unknown (the loader numbers such ranks).
        if (k == "rank" && readInt(val, i) && i >= 0 && i < (1 << 24))
            raw.rank = std::int32_t(i);
        else if (k == "world_size" && readInt(val, i) && i > 0 && i < (1 << 24))
            raw.worldSize = std::int32_t(i);
        else if (k == "nccl_version")
            readString(val, raw.ncclVersion);
        else if (k == "pg_config") {
            od::array a;
            if (val.get_array().get(a))
                continue;
            for (auto e : a) {
                od::object pg;
                if (e.get_object().get(pg))
                    continue;
                ProcessGroupConfig c;
                for (auto pfr : pg) {
                    od::field pf;
                    if (auto err = std::move(pfr).get(pf))
                        return err;
                    const std::string_view pk = keyOf(pf);
                    std::int64_t n = 0;
                    if (pk == "pg_name")
                        readString(pf.value(), c.name);
                    else if (pk == "pg_desc")
                        readString(pf.value(), c.description);
                    else if (pk == "pg_size" && readInt(pf.value(), n) && n > 0 && n < (1 << 24))
                        c.size = std::int32_t(n);
                    else if (pk == "ranks") {
                        std::string text;
                        readListAsText(pf.value(), text);
                        for (auto r : parseIntegerList(text))
                            if (r >= 0 && r < (1 << 24))
                                c.ranks.push_back(std::int32_t(r));
                    }
                }
                raw.processGroups.push_back(std::move(c));
            }
        }
    }
    return simdjson::SUCCESS;
}

simdjson::error_code KinetoParser::Impl::readDevices(od::value& v)
{
    od::array a;
    if (auto err = v.get_array().get(a))
        return err;
    for (auto e : a) {
        od::object o;
        if (auto err = e.get_object().get(o))
            return err;
        DeviceInfo d;
        for (auto fr : o) {
            od::field f;
            if (auto err = std::move(fr).get(f))
                return err;
            const std::string_view k = keyOf(f);
            if (k == "id")
                readInt(f.value(), d.id);
            else if (k == "name")
                readString(f.value(), d.name);
            else if (k == "totalGlobalMem")
                readInt(f.value(), d.totalGlobalMem);
        }
        raw.devices.push_back(std::move(d));
    }
    return simdjson::SUCCESS;
}

KinetoParser::KinetoParser()
    : m_impl(std::make_unique<Impl>())
{
}

KinetoParser::~KinetoParser() = default;

engine::Result<engine::RankTrace> KinetoParser::parse(
    std::string_view text, const std::string& name, engine::Diagnostics& diagnostics)
{
    MemoryByteSource source(text);
    return parse(source, name, diagnostics, std::min<std::size_t>(text.size() + 1, std::size_t(4) << 20));
}

engine::Result<engine::RankTrace> KinetoParser::parseFile(const std::string& path, engine::Diagnostics& diagnostics)
{
    auto source = FileByteSource::open(path);
    if (!source)
        return source.status();
    return parse(**source, path, diagnostics);
}

engine::Result<engine::RankTrace> KinetoParser::parse(
    ByteSource& source, const std::string& name, engine::Diagnostics& diagnostics, std::size_t blockBytes)
{
    Impl& d = *m_impl;
    d.raw = RawTrace {};
    d.name = name;
    d.diagnostics = &diagnostics;
    d.badTimestamps = 0;
    bool sawEvents = false;

    // Each piece is one small simdjson document; errors name the byte in the whole input.
    auto fail = [&](od::document& doc, const std::string& text, std::int64_t origin, simdjson::error_code err,
                    const char* what) {
        const char* at = nullptr;
        std::int64_t offset = origin + std::int64_t(text.size());
        if (!doc.current_location().get(at) && at >= text.data() && at <= text.data() + text.size())
            offset = origin + std::int64_t(at - text.data());
        return Status::error(name + ": byte " + std::to_string(std::max<std::int64_t>(offset, 0)) + ": " + what + " ("
            + simdjson::error_message(err) + ")");
    };
    auto onBatch = [&](const std::string& batch, std::int64_t origin) -> Status {
        sawEvents = true;
        od::document doc;
        if (auto err
            = d.parser.iterate(simdjson::padded_string_view(batch.data(), batch.size(), batch.capacity())).get(doc))
            return Status::error(name + ": byte " + std::to_string(origin + 1) + ": malformed trace events ("
                + simdjson::error_message(err) + ")");
        od::array events;
        if (auto err = doc.get_array().get(events))
            return fail(doc, batch, origin, err, "malformed trace events");
        for (auto er : events) {
            od::object o;
            if (auto err = er.get_object().get(o))
                return fail(doc, batch, origin, err, "malformed trace event");
            if (auto err = d.readEvent(o))
                return fail(doc, batch, origin, err, "malformed trace event");
        }
        return Status::success();
    };
    auto onMember = [&](std::string_view key, const std::string& text, std::int64_t origin) -> Status {
        if (key == "traceEvents")
            return Status::error(name + ": byte " + std::to_string(origin) + ": traceEvents is not an array");
        if (key == "baseTimeNanoseconds") {
            std::string_view t = trim(text);
            if (t.size() >= 2 && t.front() == '"' && t.back() == '"')
                t = t.substr(1, t.size() - 2);
            const auto v = parseInteger(t);
            if (!v)
                return Status::error(
                    name + ": byte " + std::to_string(origin) + ": baseTimeNanoseconds is not an integer");
            if (*v < 0 || *v > kMaxTraceNs)
                return Status::error(name + ": byte " + std::to_string(origin) + ": baseTimeNanoseconds ("
                    + std::string(t) + ") is not a time: expected 0 to 3e18 ns since the epoch");
            d.raw.baseTimeNs = *v;
            return Status::success();
        }
        if (key != "distributedInfo" && key != "deviceProperties")
            return Status::success();
        od::document doc;
        if (auto err
            = d.parser.iterate(simdjson::padded_string_view(text.data(), text.size(), text.capacity())).get(doc))
            return Status::error(name + ": byte " + std::to_string(origin) + ": malformed " + std::string(key) + " ("
                + simdjson::error_message(err) + ")");
        od::value v;
        auto err = doc.get_value().get(v);
        if (!err)
            err = key == "distributedInfo" ? d.readDistributedInfo(v) : d.readDevices(v);
        if (err)
            return fail(doc, text, origin, err,
                key == "distributedInfo" ? "malformed distributedInfo" : "malformed deviceProperties");
        return Status::success();
    };
    TraceJsonSplitter splitter(source, name, std::size_t(4) << 20, blockBytes);
    if (auto st = splitter.run(onMember, onBatch); !st)
        return st;
    // An empty "traceEvents": [] is a valid (if useless) trace; a missing one is not.
    if (!sawEvents && !splitter.sawEventsArray())
        return Status::error(name + ": no \"traceEvents\" array: not a PyTorch profiler (Kineto) trace");
    if (d.badTimestamps > 0)
        diagnostics.add(engine::diagnostic::kKinetoBadTimestamp,
            name + ": events with a missing, malformed, negative or out-of-range (beyond 3e18 ns) ts/dur were skipped.",
            d.badTimestamps);
    return kineto::assembleRankTrace(std::move(d.raw), name, diagnostics);
}

} // namespace clusterscope::importers
