#include "importers/nsys/nsysimporter.h"

#include "importers/kineto/ncclkernelname.h"
#include "importers/nsys/sqlitereader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <map>

namespace clusterscope::importers {

using engine::CollectiveOp;
using engine::Status;

namespace {
    struct NvtxRange {
        std::int64_t tid = 0, start = 0, end = 0;
        std::string name;
        bool nccl = false;
        std::int64_t bytes = -1;
        std::int32_t rank = -1, nranks = 0, peer = -1;
        std::string comm;
    };

    std::string lower(std::string s)
    {
        for (auto& c : s)
            c = char(std::tolower(static_cast<unsigned char>(c)));
        return s;
    }

    // NCCL's NVTX payload as nsys exports it (jsonText): {"Message size [bytes]": N, "Rank": r,
    // "No. of ranks": n, "Communicator": hash, "Peer rank": p}. Keys are matched loosely.
    void readPayload(const std::string& json, NvtxRange& r)
    {
        auto doc = nlohmann::json::parse(json, nullptr, false);
        if (!doc.is_object())
            return;
        for (const auto& [key, value] : doc.items()) {
            const std::string k = lower(key);
            if (value.is_number_integer()) {
                const auto v = value.get<std::int64_t>();
                if (k.find("size") != std::string::npos || k.find("bytes") != std::string::npos)
                    r.bytes = v;
                else if (k.find("peer") != std::string::npos)
                    r.peer = std::int32_t(v);
                else if (k.find("ranks") != std::string::npos)
                    r.nranks = std::int32_t(v);
                else if (k == "rank")
                    r.rank = std::int32_t(v);
                else if (k.find("comm") != std::string::npos)
                    r.comm = std::to_string(v);
            } else if (value.is_string() && k.find("comm") != std::string::npos) {
                r.comm = value.get<std::string>();
            }
        }
    }
}

engine::Result<std::vector<engine::RankTrace>> importNsysDatabase(
    const std::string& path, engine::Diagnostics& diagnostics)
{
    auto dbResult = SqliteReader::open(path);
    if (!dbResult)
        return dbResult.status();
    SqliteReader& db = *dbResult;
    if (!db.hasTable("CUPTI_ACTIVITY_KIND_KERNEL"))
        return Status::error(
            path + ": no CUPTI_ACTIVITY_KIND_KERNEL table: not an Nsight Systems export with CUDA kernels");

    std::map<std::int64_t, std::string> strings;
    if (db.hasTable("StringIds")) {
        auto st = db.forEach(
            "SELECT id, value FROM StringIds", [&](const SqliteRow& row) { strings[row.integer(0)] = row.text(1); });
        if (!st)
            return st;
    }
    auto stringOf = [&](std::int64_t id) -> std::string {
        auto it = strings.find(id);
        return it == strings.end() ? std::string() : it->second;
    };
    std::int64_t base = 0;
    if (db.hasTable("TARGET_INFO_SESSION_START_TIME")) {
        auto st = db.forEach("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME",
            [&](const SqliteRow& row) { base = row.integer(0); });
        if (!st)
            return st;
    }

    // Launch calls: correlationId -> (thread, start).
    std::map<std::int64_t, std::pair<std::int64_t, std::int64_t>> launches;
    if (db.hasTable("CUPTI_ACTIVITY_KIND_RUNTIME")) {
        auto st = db.forEach(
            "SELECT correlationId, globalTid, start FROM CUPTI_ACTIVITY_KIND_RUNTIME", [&](const SqliteRow& row) {
                launches[row.integer(0)] = { row.integer(1), row.integer(2) };
            });
        if (!st)
            return st;
    }

    // NVTX: the NCCL domain's ranges and ProfilerStep#N ranges.
    std::vector<NvtxRange> ranges;
    std::vector<engine::ProfilerStepRange> steps;
    if (db.hasTable("NVTX_EVENTS")) {
        std::int64_t ncclDomain = -1;
        // eventType 75 = NvtxDomainCreate: text is the domain's name.
        auto domains
            = db.forEach("SELECT domainId, text FROM NVTX_EVENTS WHERE eventType = 75", [&](const SqliteRow& row) {
                  if (row.text(1) == "NCCL")
                      ncclDomain = row.integer(0);
              });
        if (!domains)
            return domains;
        const bool hasJson = db.hasColumn("NVTX_EVENTS", "jsonText");
        const std::string sql = std::string("SELECT start, end, globalTid, text, textId, domainId, ")
            + (hasJson ? "jsonText" : "NULL") + " FROM NVTX_EVENTS WHERE eventType IN (59, 60) AND end IS NOT NULL";
        auto st = db.forEach(sql, [&](const SqliteRow& row) {
            NvtxRange r;
            r.start = row.integer(0);
            r.end = row.integer(1);
            r.tid = row.integer(2);
            r.name = row.isNull(3) ? stringOf(row.integer(4)) : row.text(3);
            const std::int64_t domain = row.isNull(5) ? 0 : row.integer(5);
            if (r.name.rfind("ProfilerStep#", 0) == 0) {
                try {
                    steps.push_back({ std::stoll(r.name.substr(13)), r.start + base, r.end + base });
                } catch (...) {
                }
                return;
            }
            if (ncclDomain >= 0 && domain == ncclDomain) {
                r.nccl = true;
                if (!row.isNull(6))
                    readPayload(row.text(6), r);
                ranges.push_back(std::move(r));
            }
        });
        if (!st)
            return st;
    }
    std::sort(ranges.begin(), ranges.end(),
        [](const NvtxRange& a, const NvtxRange& b) { return a.tid < b.tid || (a.tid == b.tid && a.start < b.start); });
    auto enclosing = [&](std::int64_t tid, std::int64_t ts) -> const NvtxRange* {
        auto it = std::upper_bound(ranges.begin(), ranges.end(), std::make_pair(tid, ts),
            [](const std::pair<std::int64_t, std::int64_t>& v, const NvtxRange& r) {
                return v.first < r.tid || (v.first == r.tid && v.second < r.start);
            });
        for (int i = 0; i < 16 && it != ranges.begin(); ++i) {
            --it;
            if (it->tid != tid)
                break;
            if (ts >= it->start && ts <= it->end)
                return &*it;
        }
        return nullptr;
    };

    std::map<std::int64_t, engine::RankTrace> byDevice;
    std::map<std::int64_t, std::int32_t> deviceRank;
    std::int64_t unknownSize = 0;
    const std::string nameColumn
        = db.hasColumn("CUPTI_ACTIVITY_KIND_KERNEL", "demangledName") ? "demangledName" : "shortName";
    auto st = db.forEach("SELECT start, end, deviceId, streamId, correlationId, " + nameColumn
            + " FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start",
        [&](const SqliteRow& row) {
            engine::RankTrace& t = byDevice[row.integer(2)];
            engine::GpuActivity a;
            a.startNs = row.integer(0) + base;
            a.endNs = row.integer(1) + base;
            a.stream = std::int32_t(row.integer(3));
            const auto launch = launches.find(row.integer(4));
            if (launch != launches.end())
                a.launchNs = launch->second.second + base;
            const std::string name = stringOf(row.integer(5));
            if (auto k = parseNcclKernelName(name)) {
                a.kind = engine::GpuActivityKind::Communication;
                engine::CollectiveCall c;
                c.op = k->op;
                c.algorithm = k->algorithm;
                c.dtype = k->dtype;
                c.kernelName = name.substr(0, name.find('('));
                c.startNs = a.startNs;
                c.endNs = a.endNs;
                c.launchNs = a.launchNs;
                const NvtxRange* r
                    = launch != launches.end() ? enclosing(launch->second.first, launch->second.second) : nullptr;
                if (r) {
                    if (engine::parseRunCollectiveOp(r->name) != CollectiveOp::Unknown)
                        c.op = engine::parseRunCollectiveOp(r->name);
                    c.groupSize = r->nranks;
                    c.processGroup = r->comm;
                    // NCCL reports its own count x type size: the per-rank share for AllGather and
                    // ReduceScatter, so S = n x that (NVIDIA/nccl-tests doc/PERFORMANCE.md).
                    c.bytes = r->bytes;
                    if (c.bytes >= 0 && (c.op == CollectiveOp::AllGather || c.op == CollectiveOp::ReduceScatter))
                        c.bytes = r->nranks > 0 ? c.bytes * r->nranks : -1;
                    if (r->peer >= 0) {
                        c.peerRank = r->peer;
                        c.p2pDirection = r->name.find("Recv") != std::string::npos ? -1 : 1;
                    }
                    if (r->rank >= 0)
                        deviceRank[row.integer(2)] = r->rank;
                }
                if (c.bytes < 0)
                    ++unknownSize;
                a.collectiveIndex = std::int32_t(t.collectives.size());
                t.collectives.push_back(std::move(c));
            }
            t.activities.push_back(a);
        });
    if (!st)
        return st;
    for (const char* table : { "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET" }) {
        if (!db.hasTable(table))
            continue;
        const bool memset = std::string(table).back() == 'T';
        auto s2 = db.forEach(std::string("SELECT start, end, deviceId, streamId, correlationId FROM ") + table,
            [&](const SqliteRow& row) {
                engine::GpuActivity a;
                a.startNs = row.integer(0) + base;
                a.endNs = row.integer(1) + base;
                a.stream = std::int32_t(row.integer(3));
                a.kind = memset ? engine::GpuActivityKind::Memset : engine::GpuActivityKind::Memcpy;
                const auto launch = launches.find(row.integer(4));
                if (launch != launches.end())
                    a.launchNs = launch->second.second + base;
                byDevice[row.integer(2)].activities.push_back(a);
            });
        if (!s2)
            return s2;
    }
    std::map<std::int64_t, std::pair<std::string, std::int64_t>> gpus;
    if (db.hasTable("TARGET_INFO_GPU")) {
        auto st = db.forEach("SELECT id, name, totalMemory FROM TARGET_INFO_GPU", [&](const SqliteRow& row) {
            gpus[row.integer(0)] = { row.text(1), row.integer(2) };
        });
        if (!st)
            return st;
    }
    if (unknownSize > 0)
        diagnostics.add(engine::diagnostic::kNsysNcclSizeUnknown,
            path + ": NCCL kernels without an enclosing NCCL NVTX range with a message size have no bandwidth.",
            unknownSize);

    std::vector<engine::RankTrace> out;
    std::sort(steps.begin(), steps.end(),
        [](const engine::ProfilerStepRange& a, const engine::ProfilerStepRange& b) { return a.startNs < b.startNs; });
    for (auto& [device, t] : byDevice) {
        t.sourceFile = path;
        t.rank = deviceRank.count(device) ? deviceRank[device] : -1;
        std::int32_t world = 0;
        for (const auto& c : t.collectives)
            world = std::max(world, c.groupSize);
        t.worldSize = world;
        if (gpus.count(device)) {
            t.gpuName = gpus[device].first;
            t.gpuMemoryBytes = gpus[device].second;
        }
        t.steps = steps;
        // Kernels were read in start order; copies were appended: restore order, fix indices.
        std::stable_sort(t.activities.begin(), t.activities.end(),
            [](const engine::GpuActivity& a, const engine::GpuActivity& b) { return a.startNs < b.startNs; });
        out.push_back(std::move(t));
    }
    if (out.empty())
        return Status::error(path + ": CUPTI_ACTIVITY_KIND_KERNEL holds no kernels");
    return out;
}

} // namespace clusterscope::importers
