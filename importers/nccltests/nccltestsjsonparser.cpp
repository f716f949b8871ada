#include "importers/nccltests/nccltestsjsonparser.h"

#include "importers/nccltests/nccltestsruncheck.h"

#include "engine/core/jsonfields.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <limits>
#include <string_view>

namespace clusterscope::importers {

namespace {

    using nlohmann::json;

    class JsonReader {
    public:
        explicit JsonReader(const std::string& file)
            : m_file(file)
        {
        }

        engine::Status fail(const std::string& pointer, const std::string& message) const
        {
            return engine::Status::error(m_file + ": " + pointer + ": " + message);
        }

        /// A number written by jsonDouble/jsonInt/jsonSize_t; "nan" (a string) and null read as empty.
        engine::Result<std::optional<double>> number(
            const json& object, const char* key, const std::string& pointer) const
        {
            const auto it = object.find(key);
            if (it == object.end() || it->is_null())
                return std::optional<double> {};
            if (it->is_number())
                return std::optional<double> { it->get<double>() };
            if (it->is_string() && (it->get<std::string>() == "nan" || it->get<std::string>() == "N/A"))
                return std::optional<double> {};
            return fail(pointer + "/" + key, "expected a number, got " + it->dump());
        }

        /// An optional integer that must fit `field`; absent or null leaves `field` unchanged.
        template <typename Int>
        engine::Status optionalInt(const json& object, const char* key, const std::string& pointer, Int& field) const
        {
            const auto it = object.find(key);
            if (it == object.end() || it->is_null())
                return {};
            if (it->is_number_integer()) {
                const long long v = it->get<long long>();
                if ((it->is_number_unsigned()
                        && it->get<unsigned long long>()
                            > static_cast<unsigned long long>(std::numeric_limits<Int>::max()))
                    || v < static_cast<long long>(std::numeric_limits<Int>::min())
                    || v > static_cast<long long>(std::numeric_limits<Int>::max()))
                    return fail(pointer + "/" + key, "integer out of range: " + it->dump());
                field = static_cast<Int>(v);
                return {};
            }
            return fail(pointer + "/" + key, "expected an integer, got " + it->dump());
        }

        /// An optional string; absent or null leaves `field` unchanged.
        engine::Status optionalString(
            const json& object, const char* key, const std::string& pointer, std::string& field) const
        {
            const auto it = object.find(key);
            if (it == object.end() || it->is_null())
                return {};
            if (!it->is_string())
                return fail(pointer + "/" + key, "expected a string, got " + it->dump());
            field = it->get<std::string>();
            return {};
        }

        engine::Result<NcclTestsMeasurement> measurement(const json& half, const std::string& pointer) const
        {
            if (!half.is_object())
                return fail(pointer, "expected an object with time, alg_bw, bus_bw, nwrong");
            NcclTestsMeasurement m;
            const char* timeKey = half.contains("cpu_time") ? "cpu_time" : "time";
            auto time = number(half, timeKey, pointer);
            auto alg = number(half, "alg_bw", pointer);
            auto bus = number(half, "bus_bw", pointer);
            auto wrong = number(half, "nwrong", pointer);
            for (const auto* r : { &time, &alg, &bus, &wrong }) {
                if (!*r)
                    return r->status();
            }
            m.timeUs = *time;
            m.algbwGBps = *alg;
            m.busbwGBps = *bus;
            m.wrong = *wrong;
            return m;
        }

        /// "out_of_place_per_iter" / "in_place_per_iter" of -I 1 (util.cu writePerIterReport): min_us,
        /// max_us, p99_us, cv_pct, avg_us and, with several processes, per_process_max_times_us.
        engine::Result<NcclTestsIterationStats> perIteration(const json& stats, const std::string& pointer) const
        {
            if (!stats.is_object())
                return fail(pointer, "expected an object with min_us, max_us, p99_us, cv_pct");
            NcclTestsIterationStats out;
            for (auto [key, field] : { std::pair { "min_us", &out.minUs }, std::pair { "max_us", &out.maxUs },
                     std::pair { "p99_us", &out.p99Us }, std::pair { "cv_pct", &out.cvPercent } }) {
                auto v = number(stats, key, pointer);
                if (!v)
                    return v.status();
                if (!*v)
                    return fail(pointer + "/" + key, "missing");
                *field = **v;
            }
            auto avg = number(stats, "avg_us", pointer);
            if (!avg)
                return avg.status();
            out.avgUs = *avg;
            if (const auto it = stats.find("per_process_max_times_us"); it != stats.end() && !it->is_null()) {
                const std::string rows = pointer + "/per_process_max_times_us";
                if (!it->is_array())
                    return fail(rows, "expected an array of per-process arrays of times");
                for (std::size_t p = 0; p < it->size(); ++p) {
                    const json& times = (*it)[p];
                    if (!times.is_array())
                        return fail(rows + "/" + std::to_string(p), "expected an array of times (us)");
                    std::vector<double> row;
                    row.reserve(times.size());
                    for (std::size_t i = 0; i < times.size(); ++i) {
                        if (!times[i].is_number())
                            return fail(rows + "/" + std::to_string(p) + "/" + std::to_string(i),
                                "expected a time (us), got " + times[i].dump());
                        row.push_back(times[i].get<double>());
                    }
                    out.perProcessUs.push_back(std::move(row));
                }
            }
            return out;
        }

        engine::Status config(const json& config, NcclTestsRun& run) const
        {
            if (!config.is_object())
                return fail("/config", "expected an object");
            auto integer = [&](const char* key, auto& field) {
                if (const auto it = config.find(key); it != config.end() && it->is_number_integer())
                    field = it->get<long long>();
            };
            integer("nthreads", run.threads);
            integer("ngpus", run.gpusPerThread);
            integer("minimum_bytes", run.minBytes);
            integer("maximum_bytes", run.maxBytes);
            integer("step_factor", run.stepFactor);
            integer("step_bytes", run.stepBytes);
            integer("warmup_iters", run.warmupIters);
            integer("iterations", run.iters);
            integer("aggregated_iterations", run.aggIters);
            integer("validation", run.validation);
            integer("graph", run.graph);
            const auto devices = config.find("devices");
            if (devices == config.end())
                return {};
            if (!devices->is_array())
                return fail("/config/devices", "expected an array");
            for (std::size_t i = 0; i < devices->size(); ++i) {
                const json& d = (*devices)[i];
                const std::string pointer = "/config/devices/" + std::to_string(i);
                if (!d.is_object() || !d.contains("rank") || !d["rank"].is_number_integer())
                    return fail(pointer, "expected an object with an integer \"rank\"");
                NcclTestsDevice device;
                device.rank = d["rank"].get<int>();
                if (auto s = optionalInt(d, "group", pointer, device.group); !s.isOk())
                    return s;
                if (auto s = optionalInt(d, "pid", pointer, device.pid); !s.isOk())
                    return s;
                if (auto s = optionalInt(d, "device", pointer, device.device); !s.isOk())
                    return s;
                for (auto [key, field] : { std::pair { "hostname", &device.host },
                         std::pair { "device_hex", &device.busId }, std::pair { "device_info", &device.name } })
                    if (auto s = optionalString(d, key, pointer, *field); !s.isOk())
                        return s;
                run.devices.push_back(std::move(device));
            }
            return {};
        }

        engine::Status iterationsOf(
            const json& record, const char* key, const std::string& pointer, NcclTestsMeasurement& m) const
        {
            const auto it = record.find(key);
            if (it == record.end() || it->is_null())
                return {};
            auto stats = perIteration(*it, pointer + "/" + key);
            if (!stats)
                return stats.status();
            m.iterations = std::move(*stats);
            return {};
        }

        engine::Status results(const json& results, NcclTestsRun& run) const
        {
            if (!results.is_array())
                return fail("/results", "expected an array of result records");
            for (std::size_t i = 0; i < results.size(); ++i) {
                const json& r = results[i];
                const std::string pointer = "/results/" + std::to_string(i);
                if (!r.is_object())
                    return fail(pointer, "expected a result object");
                NcclTestsRow row;
                row.pointer = pointer;
                for (const char* key : { "size", "count" }) {
                    if (!r.contains(key) || !r[key].is_number_unsigned())
                        return fail(pointer + "/" + key, "expected a non-negative integer");
                }
                row.bytes = r["size"].get<std::uint64_t>();
                row.count = r["count"].get<std::uint64_t>();
                for (auto [key, field] : { std::pair { "type", &row.type }, std::pair { "redop", &row.redop } })
                    if (auto s = optionalString(r, key, pointer, *field); !s.isOk())
                        return s;
                // util.cu writes the root as the printed "%6i" text ("    -1").
                if (const auto it = r.find("root"); it != r.end()) {
                    if (it->is_number_integer()) {
                        row.root = it->get<int>();
                    } else if (it->is_string()) {
                        std::string text = it->get<std::string>();
                        text.erase(0, text.find_first_not_of(' '));
                        int root = 0;
                        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), root);
                        if (ec != std::errc() || end != text.data() + text.size())
                            return fail(pointer + "/root", "expected an integer root, got " + it->dump());
                        row.root = root;
                    }
                }
                if (const auto it = r.find("out_of_place"); it != r.end() && !it->is_null()) {
                    auto m = measurement(*it, pointer + "/out_of_place");
                    if (!m)
                        return m.status();
                    row.outOfPlace = std::move(*m);
                    if (auto s = iterationsOf(r, "out_of_place_per_iter", pointer, *row.outOfPlace); !s.isOk())
                        return s;
                }
                const auto in = r.find("in_place");
                if (in == r.end())
                    return fail(pointer, "missing \"in_place\"");
                auto m = measurement(*in, pointer + "/in_place");
                if (!m)
                    return m.status();
                row.inPlace = std::move(*m);
                if (auto s = iterationsOf(r, "in_place_per_iter", pointer, row.inPlace); !s.isOk())
                    return s;
                run.rows.push_back(std::move(row));
            }
            return {};
        }

    private:
        std::string m_file;
    };

    engine::Result<NcclTestsLog> parseDocument(
        json& doc, const std::string& fileName, const NcclTestsParseOptions& options);

} // namespace

engine::Result<NcclTestsLog> NcclTestsJsonParser::parse(
    std::string_view text, const std::string& fileName, const NcclTestsParseOptions& options)
{
    auto parsed = engine::parseJsonText(text, fileName);
    if (!parsed)
        return engine::Status::error(
            parsed.message() + " (nccl-tests -J output is one JSON object; the file may be truncated)");
    // Every access below checks the type first; the guard turns anything that slipped through into
    // an error naming the file rather than an exception.
    return engine::guardJsonRead(fileName, [&]() { return parseDocument(*parsed, fileName, options); });
}

namespace {

    engine::Result<NcclTestsLog> parseDocument(
        json& doc, const std::string& fileName, const NcclTestsParseOptions& options)
    {
        JsonReader reader(fileName);
        if (!doc.is_object() || !doc.contains("results"))
            return reader.fail("", "expected the nccl-tests -J object with \"config\" and \"results\"");
        NcclTestsLog log;
        log.file = fileName;
        log.json = true;
        NcclTestsRun run;
        run.firstLine = 1;
        if (const auto it = doc.find("args");
            it != doc.end() && it->is_array() && !it->empty() && (*it)[0].is_string()) {
            std::string binary = (*it)[0].get<std::string>();
            if (const auto slash = binary.find_last_of('/'); slash != std::string::npos)
                binary.erase(0, slash + 1);
            run.binary = binary;
        }
        if (const auto it = doc.find("env"); it != doc.end() && it->is_array()) {
            for (const auto& e : *it) {
                if (!e.is_string())
                    continue;
                readNcclTestsEnvironment(e.get_ref<const std::string&>(), run);
            }
        }
        if (const auto it = doc.find("nccl_version"); it != doc.end() && it->is_number_integer())
            run.ncclVersionCode = it->get<int>();
        if (const auto it = doc.find("config"); it != doc.end()) {
            if (auto status = reader.config(*it, run); !status.isOk())
                return status;
        }
        if (auto status = reader.results(doc["results"], run); !status.isOk())
            return status;
        if (const auto it = doc.find("average_bus_bandwidth"); it != doc.end() && it->is_object()) {
            auto bw = reader.number(*it, "bandwidth", "/average_bus_bandwidth");
            if (!bw)
                return bw.status();
            run.avgBusBwGBps = *bw;
        }
        if (const auto it = doc.find("out_of_bounds");
            it != doc.end() && it->is_object() && it->contains("count") && (*it)["count"].is_number_integer())
            run.outOfBounds = (*it)["count"].get<int>();
        log.runs.push_back(std::move(run));
        return finishNcclTestsLog(std::move(log), options, {}, {});
    }

} // namespace

} // namespace clusterscope::importers
