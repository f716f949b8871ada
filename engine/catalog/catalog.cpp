#include "engine/catalog/catalog.h"

#include "engine/core/atomicfile.h"
#include "engine/core/jsonfields.h"
#include "resources/embeddedresources.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace clusterscope::engine {

using nlohmann::json;

const char* toString(GpuArch arch)
{
    switch (arch) {
    case GpuArch::Volta:
        return "volta";
    case GpuArch::Ampere:
        return "ampere";
    case GpuArch::Hopper:
        return "hopper";
    case GpuArch::Blackwell:
        return "blackwell";
    case GpuArch::Cdna3:
        return "cdna3";
    case GpuArch::Cdna4:
        return "cdna4";
    }
    return "?";
}

int scaleUpDomainGpus(const GpuModel& gpu, int gpusPerNode, int gpus)
{
    const int node = std::max(1, gpusPerNode);
    if (gpu.scaleUpSpansNodes && gpu.scaleUpSwitched && gpu.nvlinkDomainGpus > node)
        return std::max(node, std::min(gpu.nvlinkDomainGpus, std::max(gpus, node)));
    return std::min(node, std::max(1, gpu.nvlinkDomainGpus));
}

bool hasBlockScaledFp8(const GpuModel& gpu) { return gpu.arch == GpuArch::Blackwell && gpu.fp8FlopsPerSecond; }

std::string nvfp4Unsupported(const GpuModel& gpu)
{
    return "GPU " + gpu.id + " (" + toString(gpu.arch)
        + ") has no NVFP4 tensor cores (catalog fp4_flops): NVFP4 needs Blackwell (compute capability 10.0); use "
          "fp8 or bf16";
}

std::string mxfp8Unsupported(const GpuModel& gpu)
{
    return "GPU " + gpu.id + " (" + toString(gpu.arch)
        + ") has no block-scaled MXFP8 tensor cores: MXFP8 needs Blackwell (compute capability 10.0); use fp8 "
          "(per-tensor scaling) or bf16";
}

namespace {

    void readSource(JsonObjectReader& r, SourceInfo& s)
    {
        s.source = r.string("source");
        s.date = r.string("date");
        if (s.source.empty())
            throw JsonFieldError(r.pointerOf("source"), "every catalog entry must name its source");
    }

    // An optional array of strings, each one of `allowed` (any string when `allowed` is empty).
    std::vector<std::string> stringList(
        JsonObjectReader& r, const std::string& key, std::initializer_list<const char*> allowed)
    {
        std::vector<std::string> out;
        const json* array = r.raw(key);
        if (!array)
            return out;
        if (!array->is_array())
            throw JsonFieldError(r.pointerOf(key), "expected an array of strings");
        for (std::size_t i = 0; i < array->size(); ++i) {
            const json& v = (*array)[i];
            const std::string where = r.pointerOf(key) + "/" + std::to_string(i);
            if (!v.is_string())
                throw JsonFieldError(where, "expected a string, got " + describeJsonValue(v));
            const std::string text = v.get<std::string>();
            if (allowed.size() > 0
                && std::none_of(allowed.begin(), allowed.end(), [&](const char* a) { return text == a; })) {
                std::string list;
                for (const char* a : allowed)
                    list += (list.empty() ? "" : ", ") + std::string(a);
                throw JsonFieldError(where, "expected one of " + list + ", got \"" + text + "\"");
            }
            out.push_back(text);
        }
        return out;
    }

    // Iterates the array `key` of the document root, giving each element's reader to `fn`, and
    // rejects duplicate ids.
    template <typename Fn> void forEachEntry(JsonObjectReader& root, const std::string& key, Fn fn)
    {
        const json* array = root.raw(key);
        if (!array || !array->is_array())
            throw JsonFieldError("/" + key, "expected an array of entries");
        std::set<std::string> ids;
        for (std::size_t i = 0; i < array->size(); ++i) {
            JsonObjectReader r((*array)[i], "/" + key + "/" + std::to_string(i));
            const std::string id = fn(r);
            if (!ids.insert(id).second)
                throw JsonFieldError(r.pointerOf("id"), "duplicate id \"" + id + "\"");
            r.finish();
        }
    }

    JsonObjectReader openDocument(const json& doc, const std::string& expectedFormat)
    {
        JsonObjectReader root(doc, "");
        if (root.string("format") != expectedFormat)
            throw JsonFieldError("/format", "expected \"" + expectedFormat + "\"");
        if (root.integer("version", 1) != 1)
            throw JsonFieldError("/version", "unsupported catalog version");
        root.string("note", "");
        return root;
    }

    struct NamedText {
        const std::string& text;
        std::string name;
    };

    // Thrown by parseJson: the text is not JSON; the Status already names the file and the byte.
    struct NotJson {
        Status status;
    };

    json parseJson(const NamedText& doc)
    {
        auto parsed = parseJsonText(doc.text, doc.name);
        if (!parsed)
            throw NotJson { parsed.status() };
        return std::move(*parsed);
    }

} // namespace

Result<Catalog> Catalog::parse(const std::string& gpusJson, const std::string& nicsJson,
    const std::string& switchesJson, const std::string& cablesJson, const std::string& origin)
{
    Catalog c;
    std::string current = "gpus.json";
    try {
        {
            json doc = parseJson({ gpusJson, origin + "/" + current });
            auto root = openDocument(doc, "clusterscope-catalog-gpus");
            forEachEntry(root, "gpus", [&c](JsonObjectReader& r) {
                GpuModel g;
                g.id = r.string("id");
                g.name = r.string("name");
                g.vendor = r.string("vendor");
                static const std::pair<const char*, GpuArch> arches[] = { { "volta", GpuArch::Volta },
                    { "ampere", GpuArch::Ampere }, { "hopper", GpuArch::Hopper }, { "blackwell", GpuArch::Blackwell },
                    { "cdna3", GpuArch::Cdna3 }, { "cdna4", GpuArch::Cdna4 } };
                const std::string arch
                    = r.choice("arch", { "volta", "ampere", "hopper", "blackwell", "cdna3", "cdna4" });
                for (const auto& [n, a] : arches)
                    if (arch == n)
                        g.arch = a;
                g.bf16FlopsPerSecond = r.number("bf16_flops", 1e12, 1e17);
                if (r.has("fp8_flops"))
                    g.fp8FlopsPerSecond = r.number("fp8_flops", 1e12, 1e17);
                else
                    r.raw("fp8_flops");
                if (r.has("fp4_flops"))
                    g.fp4FlopsPerSecond = r.number("fp4_flops", 1e12, 1e18);
                g.hbmBytes = r.number("hbm_bytes", 1e9, 1e13);
                g.hbmBytesPerSecond = r.number("hbm_bytes_per_second", 1e10, 1e14);
                auto up = r.object("scaleup", true);
                g.scaleUpLink = up->string("link");
                g.scaleUpBytesPerSecond = up->number("bytes_per_second", 1e9, 1e14);
                g.scaleUpLinks = up->positiveInt("links");
                g.nvlinkDomainGpus = up->positiveInt("domain_gpus");
                g.scaleUpSwitched = up->boolean("switched");
                g.scaleUpSpansNodes = up->boolean("spans_nodes", false);
                up->finish();
                if (auto server = r.object("server")) {
                    g.serverGpus = server->boundedInt("gpus", 1, 1024);
                    g.serverNics = server->boundedInt("nics", 1, 1024);
                    g.serverNicGbps = server->number("nic_gbps", 1, 1e5);
                    g.serverSource = server->string("source");
                    if (g.serverSource.empty())
                        throw JsonFieldError(server->pointerOf("source"), "the reference server must name its source");
                    server->finish();
                } else {
                    // A catalog written before "server": the reference servers of each generation (DGX-1:
                    // 4 x 100 Gb/s for 8 V100; DGX A100: 8 x 200; DGX H100 and later: 8 x 400).
                    g.serverNics = g.arch == GpuArch::Volta ? 4 : 8;
                    g.serverNicGbps = g.arch == GpuArch::Volta ? 100 : g.arch == GpuArch::Ampere ? 200 : 400;
                }
                g.pcieBytesPerSecond = r.number("pcie_bytes_per_second", 1e9, 1e12);
                g.hostLinkBytesPerSecond = r.number("host_link_bytes_per_second", 1e9, 1e13, g.pcieBytesPerSecond);
                g.tdpWatts = r.number("tdp_w", 1, 1e5);
                g.priceUsd = r.number("price_usd", 0, 1e7);
                g.sms = r.boundedInt("sms", 1, 1 << 16, 132);
                if (auto a = r.object("achievable")) {
                    g.gemmBf16Fraction = a->number("gemm_bf16", 0.01, 1.0, g.gemmBf16Fraction);
                    g.gemmFp8Fraction = a->number("gemm_fp8", 0.01, 1.0, g.gemmFp8Fraction);
                    if (a->has("gemm_mxfp8"))
                        g.gemmMxfp8Fraction = a->number("gemm_mxfp8", 0.01, 1.0);
                    if (a->has("gemm_nvfp4"))
                        g.gemmNvfp4Fraction = a->number("gemm_nvfp4", 0.01, 1.0);
                    g.attentionFraction = a->number("attention_bf16", 0.01, 1.0, g.attentionFraction);
                    g.sustainedClockFraction = a->number("sustained_clock", 0.1, 1.0, g.sustainedClockFraction);
                    a->string("source", "");
                    a->finish();
                }
                readSource(r, g);
                c.m_gpus.push_back(g);
                return g.id;
            });
            root.finish();
        }
        current = "nics.json";
        {
            json doc = parseJson({ nicsJson, origin + "/" + current });
            auto root = openDocument(doc, "clusterscope-catalog-nics");
            forEachEntry(root, "nics", [&c](JsonObjectReader& r) {
                NicModel n;
                n.id = r.string("id");
                n.name = r.string("name");
                n.transport = r.choice("transport", { "infiniband", "roce" });
                n.gbps = r.number("gbps", 1, 1e5);
                n.powerWatts = r.number("power_w", 0, 1e4);
                n.priceUsd = r.number("price_usd", 0, 1e7);
                readSource(r, n);
                c.m_nics.push_back(n);
                return n.id;
            });
            root.string("net_transports_note", "");
            if (root.has("net_transports")) {
                forEachEntry(root, "net_transports", [&c](JsonObjectReader& r) {
                    NetTransportModel t;
                    t.id = r.string("id");
                    t.name = r.string("name");
                    t.fabric = r.choice("fabric", { "infiniband", "roce", "any" });
                    t.ncclNetNames = stringList(r, "nccl_net", {});
                    t.algorithms = stringList(r, "algorithms",
                        { "ring", "tree", "nvls", "nvlstree", "collnet_direct", "collnet_chain", "pat" });
                    t.protocols = stringList(r, "protocols", { "LL", "LL128", "Simple" });
                    t.nvls = r.boolean("nvls", true);
                    t.bufferBytes = r.number("buffer_bytes", 65536, 1e10, t.bufferBytes);
                    t.nicEfficiency = r.number("nic_efficiency", 0.05, 1.0, t.nicEfficiency);
                    t.callOverheadUs = r.number("call_overhead_us", 0, 1e6, 0.0);
                    readSource(r, t);
                    c.m_netTransports.push_back(t);
                    return t.id;
                });
            }
            root.finish();
        }
        current = "switches.json";
        {
            json doc = parseJson({ switchesJson, origin + "/" + current });
            auto root = openDocument(doc, "clusterscope-catalog-switches");
            forEachEntry(root, "switches", [&c](JsonObjectReader& r) {
                SwitchModel s;
                s.id = r.string("id");
                s.name = r.string("name");
                s.transport = r.choice("transport", { "infiniband", "roce" });
                s.radix = r.positiveInt("radix");
                s.portGbps = r.number("port_gbps", 1, 1e5);
                s.rackUnits = r.positiveInt("rack_units");
                s.powerWatts = r.number("power_w", 0, 1e5);
                s.priceUsd = r.number("price_usd", 0, 1e8);
                readSource(r, s);
                c.m_switches.push_back(s);
                return s.id;
            });
            root.finish();
        }
        current = "cables.json";
        {
            json doc = parseJson({ cablesJson, origin + "/" + current });
            auto root = openDocument(doc, "clusterscope-catalog-cables");
            forEachEntry(root, "cables", [&c](JsonObjectReader& r) {
                CableModel m;
                m.id = r.string("id");
                m.name = r.string("name");
                m.medium = r.choice("medium", { "passive-copper", "active-copper", "multimode", "single-mode" });
                m.maxReachMetres = r.number("max_reach_m", 0.1, 1e5);
                m.maxGbps = r.number("max_gbps", 1, 1e5);
                m.powerPerEndWatts = r.number("power_per_end_w", 0, 1e3);
                m.priceUsd = r.number("price_usd", 0, 1e6);
                m.pricePerMetreUsd = r.number("price_per_m_usd", 0, 1e4);
                m.needsTransceivers = r.boolean("needs_transceivers");
                m.transceiver = m.needsTransceivers ? r.string("transceiver") : r.string("transceiver", "");
                readSource(r, m);
                c.m_cables.push_back(m);
                return m.id;
            });
            forEachEntry(root, "transceivers", [&c](JsonObjectReader& r) {
                TransceiverModel t;
                t.id = r.string("id");
                t.name = r.string("name");
                t.medium = r.choice("medium", { "multimode", "single-mode" });
                t.maxReachMetres = r.number("max_reach_m", 0.1, 1e5);
                t.gbps = r.number("gbps", 1, 1e5);
                t.powerWatts = r.number("power_w", 0, 1e3);
                t.priceUsd = r.number("price_usd", 0, 1e6);
                readSource(r, t);
                c.m_transceivers.push_back(t);
                return t.id;
            });
            root.finish();
            for (std::size_t i = 0; i < c.m_cables.size(); ++i) {
                const CableModel& m = c.m_cables[i];
                if (m.needsTransceivers && !c.findTransceiver(m.transceiver))
                    throw JsonFieldError("/cables/" + std::to_string(i) + "/transceiver",
                        "no transceiver with id \"" + m.transceiver + "\"");
            }
        }
    } catch (const JsonFieldError& e) {
        return Status::error(origin + "/" + current + ": " + e.pointer + ": " + e.what());
    } catch (const NotJson& e) {
        return e.status;
    } catch (const json::exception& e) {
        return Status::error(jsonExceptionMessage(origin + "/" + current, e));
    }
    return c;
}

Result<Catalog> Catalog::builtin()
{
    const auto text = [](const char* path) { return std::string(resources::embeddedFile(path)); };
    return parse(text("catalog/gpus.json"), text("catalog/nics.json"), text("catalog/switches.json"),
        text("catalog/cables.json"), "built-in catalog");
}

Result<Catalog> Catalog::loadFromDirectory(const std::string& directory)
{
    std::string texts[4];
    const char* names[4] = { "gpus.json", "nics.json", "switches.json", "cables.json" };
    for (int i = 0; i < 4; ++i) {
        auto t = readWholeFile(directory + "/" + names[i]);
        if (!t)
            return t.status();
        texts[i] = std::move(*t);
    }
    return parse(texts[0], texts[1], texts[2], texts[3], directory);
}

namespace {
    template <typename T> const T* findById(const std::vector<T>& items, const std::string& id)
    {
        const auto it = std::find_if(items.begin(), items.end(), [&id](const T& t) { return t.id == id; });
        return it == items.end() ? nullptr : &*it;
    }
}

const GpuModel* Catalog::findGpu(const std::string& id) const { return findById(m_gpus, id); }
const NicModel* Catalog::findNic(const std::string& id) const { return findById(m_nics, id); }
const SwitchModel* Catalog::findSwitch(const std::string& id) const { return findById(m_switches, id); }
const CableModel* Catalog::findCable(const std::string& id) const { return findById(m_cables, id); }
const TransceiverModel* Catalog::findTransceiver(const std::string& id) const { return findById(m_transceivers, id); }

const NetTransportModel* Catalog::findNetTransport(const std::string& id) const
{
    return findById(m_netTransports, id);
}

const NetTransportModel* Catalog::netTransportForNcclNet(const std::string& ncclNet) const
{
    const auto lower = [](std::string s) {
        std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return char(std::tolower(ch)); });
        return s;
    };
    const std::string wanted = lower(ncclNet);
    for (const NetTransportModel& t : m_netTransports)
        for (const std::string& name : t.ncclNetNames)
            if (lower(name) == wanted)
                return &t;
    return nullptr;
}

const NicModel* Catalog::nicFor(const std::string& transport, double gbps) const
{
    for (const NicModel& n : m_nics)
        if (n.transport == transport && n.gbps == gbps)
            return &n;
    return nullptr;
}

} // namespace clusterscope::engine
