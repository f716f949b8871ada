#include "importers/nccltests/nccltestsparser.h"

#include "importers/nccltests/nccltestscollective.h"
#include "importers/nccltests/nccltestsruncheck.h"
#include "importers/nccltests/ncclteststokenizer.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace clusterscope::importers {

std::optional<std::optional<double>> parseNcclTestsNumber(std::string_view text)
{
    if (text == "N/A")
        return std::optional<double> {};
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        return std::nullopt;
    if (!std::isfinite(value))
        return std::optional<double> {}; // "nan", "-nan", "inf": printed when a timing went wrong
    return std::optional<double> { value };
}

namespace {

    template <typename Int> std::optional<Int> parseInteger(std::string_view text)
    {
        Int value {};
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (ec != std::errc() || end != text.data() + text.size() || text.empty())
            return std::nullopt;
        return value;
    }

    bool isNumeric(std::string_view t) { return t == "N/A" || parseNcclTestsNumber(t).has_value(); }

    bool isTimeColumn(std::string_view name) { return name == "time" || name == "cputime"; }

    /// Where the values of a row sit, from the column-title line (or guessed from a row without one).
    struct ColumnLayout {
        int line = 0; ///< 0: guessed, no title line
        bool hasRedop = true;
        bool hasRoot = true;
        bool timestamp = false; ///< trailing "timestamp" column (-S): date and time, two words
        std::vector<std::string> half; ///< names of one half: time algbw busbw #wrong [i_min ...]
    };

    class TextParser {
    public:
        TextParser(const std::string& file, const NcclTestsParseOptions& options)
            : m_file(file)
            , m_options(options)
        {
            m_log.file = file;
        }

        engine::Result<NcclTestsLog> run(std::string_view text);

    private:
        std::string where(int line) const { return m_file + ":" + std::to_string(line) + ": "; }
        void diag(
            const char* id, int line, std::string message, NcclTestsSeverity severity = NcclTestsSeverity::Warning)
        {
            m_log.diagnostics.push_back({ id, severity, line, where(line) + std::move(message) });
        }
        NcclTestsRun& current() { return m_log.runs.back(); }
        void startRun(int line)
        {
            m_log.runs.emplace_back();
            m_log.runs.back().firstLine = line;
            m_layout.reset();
        }
        /// A fact a run states once (version, binary, nThread line): seeing it again starts a new run.
        void startRunIf(bool alreadySet, int line)
        {
            if (m_log.runs.empty() || alreadySet || !current().rows.empty())
                startRun(line);
        }

        engine::Status comment(const NcclTestsLine& line);
        void headerFacts(const NcclTestsLine& line);
        void deviceLine(const NcclTestsLine& line);
        engine::Status columnTitles(const NcclTestsLine& line);
        void dataRow(const NcclTestsLine& line);
        void otherLine(const NcclTestsLine& line);
        void ncclVersionBanner(const std::vector<std::string_view>& tokens);
        bool readHalf(const NcclTestsLine& line, std::size_t first, NcclTestsMeasurement& out);

        std::string m_file;
        NcclTestsParseOptions m_options;
        NcclTestsLog m_log;
        std::optional<ColumnLayout> m_layout;
        int m_badRows = 0;
        std::string m_firstBadRow;
        std::string m_firstFailure; ///< first "... NCCL failure ..." / "Test failure" line seen
    };

    engine::Status TextParser::comment(const NcclTestsLine& line)
    {
        const auto& t = line.tokens;
        if (t.empty())
            return {};
        ncclVersionBanner(t);
        if (t.size() >= 3 && t[0] == "nccl-tests" && t[1] == "version") {
            startRunIf(!current().ncclTestsVersion.empty(), line.number);
            current().ncclTestsVersion = std::string(t[2]);
            for (std::size_t i = 3; i < t.size(); ++i) {
                if (t[i].substr(0, 13) == "nccl-library=")
                    current().ncclVersionCode = parseInteger<int>(t[i].substr(13));
            }
        } else if (t.size() >= 4 && t[0] == "Collective" && t[1] == "test" && t[2] == "starting:") {
            startRunIf(!current().binary.empty(), line.number);
            current().binary = std::string(t[3]);
        } else if (t[0] == "nThread") {
            startRunIf(current().threads.has_value(), line.number);
            headerFacts(line);
        } else if (t[0] == "Rank" && t.size() >= 2 && parseInteger<int>(t[1])) {
            if (!current().rows.empty())
                startRun(line.number);
            deviceLine(line);
        } else if (t[0] == "size") {
            return columnTitles(line);
        } else if (t.size() >= 5 && t[0] == "Avg" && t[1] == "bus" && t[2] == "bandwidth" && t[3] == ":") {
            if (auto v = parseNcclTestsNumber(t[4]); v && *v)
                current().avgBusBwGBps = **v;
            else
                diag("summary-number", line.number,
                    "cannot read the average bus bandwidth \"" + std::string(t[4]) + "\"");
        } else if (t.size() >= 5 && t[0] == "Out" && t[1] == "of" && t[2] == "bounds" && t[4] == ":") {
            if (t.size() >= 6)
                current().outOfBounds = parseInteger<int>(t[5]);
        }
        return {};
    }

    void TextParser::headerFacts(const NcclTestsLine& line)
    {
        // "nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20
        //  agg iters: 1 validation: 1 graph: 0" (src/common.cu / util.cu writeDeviceReport).
        auto& r = current();
        const auto& t = line.tokens;
        for (std::size_t i = 0; i + 1 < t.size(); ++i) {
            const std::string_view key = t[i];
            const std::string_view value = t[i + 1];
            const std::string_view before = i > 0 ? t[i - 1] : std::string_view {};
            if (key == "nThread")
                r.threads = parseInteger<int>(value);
            else if (key == "nGpus")
                r.gpusPerThread = parseInteger<int>(value);
            else if (key == "minBytes")
                r.minBytes = parseInteger<std::uint64_t>(value);
            else if (key == "maxBytes")
                r.maxBytes = parseInteger<std::uint64_t>(value);
            else if (key == "step:") {
                const auto open = value.find('(');
                const auto number = parseInteger<std::uint64_t>(value.substr(0, open));
                if (value.substr(open == std::string_view::npos ? value.size() : open) == "(factor)")
                    r.stepFactor = number;
                else
                    r.stepBytes = number;
            } else if (key == "iters:") {
                if (before == "warmup")
                    r.warmupIters = parseInteger<int>(value);
                else if (before == "agg")
                    r.aggIters = parseInteger<int>(value);
                else
                    r.iters = parseInteger<int>(value);
            } else if (key == "validation:")
                r.validation = parseInteger<int>(value);
            else if (key == "graph:")
                r.graph = parseInteger<int>(value);
        }
        if (!r.threads || !r.gpusPerThread)
            diag("header-line", line.number, "cannot read nThread/nGpus from the header line");
    }

    void TextParser::deviceLine(const NcclTestsLine& line)
    {
        // "Rank  0 Group  0 Pid 1976149 on HOST device  0 [0000:04:00] NVIDIA H100 80GB HBM3"; older
        // builds omit "Group" and print the bus as [0x07].
        const auto& t = line.tokens;
        NcclTestsDevice d;
        d.line = line.number;
        d.rank = *parseInteger<int>(t[1]);
        std::size_t i = 2;
        bool ok = true;
        if (i + 1 < t.size() && t[i] == "Group") {
            ok = ok && parseInteger<int>(t[i + 1]).has_value();
            d.group = parseInteger<int>(t[i + 1]).value_or(0);
            i += 2;
        }
        if (i + 1 < t.size() && t[i] == "Pid") {
            d.pid = parseInteger<long long>(t[i + 1]).value_or(0);
            i += 2;
        }
        std::size_t deviceAt = i;
        while (deviceAt < t.size() && t[deviceAt] != "device")
            ++deviceAt;
        if (i >= t.size() || t[i] != "on" || deviceAt + 1 >= t.size() || deviceAt == i + 1)
            ok = false;
        if (ok) {
            for (std::size_t h = i + 1; h < deviceAt; ++h)
                d.host += (h > i + 1 ? " " : "") + std::string(t[h]);
            const auto device = parseInteger<int>(t[deviceAt + 1]);
            ok = device.has_value();
            d.device = device.value_or(0);
            std::size_t nameAt = deviceAt + 2;
            if (nameAt < t.size() && t[nameAt].front() == '[' && t[nameAt].back() == ']') {
                d.busId = std::string(t[nameAt].substr(1, t[nameAt].size() - 2));
                ++nameAt;
            }
            // The name keeps its own spacing: take the text from its first word to the end of the line.
            if (nameAt < t.size())
                d.name = std::string(line.text.substr(static_cast<std::size_t>(t[nameAt].data() - line.text.data())));
            while (!d.name.empty() && (d.name.back() == ' ' || d.name.back() == '\t'))
                d.name.pop_back();
        }
        if (!ok) {
            diag("device-line", line.number,
                "cannot read the device line (expected \"Rank R Group G Pid P on HOST device D [BUS] NAME\")");
            return;
        }
        current().devices.push_back(std::move(d));
    }

    engine::Status TextParser::columnTitles(const NcclTestsLine& line)
    {
        // "size count type redop root time algbw busbw #wrong time algbw busbw #wrong [timestamp]"
        // (util.cu writeResultHeader); older builds: no root, "error" instead of "#wrong".
        ColumnLayout layout;
        layout.line = line.number;
        std::vector<std::string> names(line.tokens.begin(), line.tokens.end());
        if (!names.empty() && names.back() == "timestamp") {
            layout.timestamp = true;
            names.pop_back();
        }
        std::size_t firstTime = 0;
        while (firstTime < names.size() && !isTimeColumn(names[firstTime]))
            ++firstTime;
        layout.hasRedop = false;
        layout.hasRoot = false;
        for (std::size_t i = 0; i < firstTime; ++i) {
            layout.hasRedop = layout.hasRedop || names[i] == "redop";
            layout.hasRoot = layout.hasRoot || names[i] == "root";
        }
        const std::size_t stats = names.size() - firstTime;
        const bool halves = stats >= 6 && stats % 2 == 0 && isTimeColumn(names[firstTime + stats / 2]);
        bool bandwidths = false;
        if (halves) {
            layout.half.assign(
                names.begin() + static_cast<long>(firstTime), names.begin() + static_cast<long>(firstTime + stats / 2));
            bool alg = false, bus = false;
            for (const auto& n : layout.half) {
                alg = alg || n == "algbw";
                bus = bus || n == "busbw";
            }
            bandwidths = alg && bus;
        }
        if (names.size() < 3 || names[0] != "size" || names[1] != "count" || names[2] != "type" || !bandwidths)
            return engine::Status::error(where(line.number)
                + "cannot read the column header (expected \"size count type [redop] [root] time algbw busbw #wrong\" "
                  "for out-of-place, then the same for in-place)");
        auto& r = current();
        r.columns = std::move(names);
        r.timeIsCpuTime = layout.half.front() == "cputime";
        r.errorColumnIsCount = true;
        for (const auto& n : layout.half) {
            if (n == "error")
                r.errorColumnIsCount = false;
        }
        m_layout = std::move(layout);
        return {};
    }

    bool TextParser::readHalf(const NcclTestsLine& line, std::size_t first, NcclTestsMeasurement& out)
    {
        for (std::size_t j = 0; j < m_layout->half.size(); ++j) {
            const std::string_view token = line.tokens[first + j];
            const auto value = parseNcclTestsNumber(token);
            const std::string& name = m_layout->half[j];
            if (!value) {
                const std::string message
                    = "cannot read " + name + " value \"" + std::string(token) + "\"; row skipped";
                diag("row-number", line.number, message);
                if (m_badRows++ == 0)
                    m_firstBadRow = where(line.number) + message;
                return false;
            }
            if (isTimeColumn(name))
                out.timeUs = *value;
            else if (name == "algbw")
                out.algbwGBps = *value;
            else if (name == "busbw")
                out.busbwGBps = *value;
            else if (name == "#wrong" || name == "error")
                out.wrong = *value;
            else if (*value)
                out.extra.emplace_back(name, **value);
        }
        // -I 1 (util.cu writePerIterReport): i_min i_max i_p99 i_cv% after #wrong.
        std::optional<double> iMin, iMax, iP99, iCv;
        for (const auto& [name, value] : out.extra) {
            std::optional<double>* field = name == "i_min" ? &iMin
                : name == "i_max"                          ? &iMax
                : name == "i_p99"                          ? &iP99
                : name == "i_cv%"                          ? &iCv
                                                           : nullptr;
            if (field)
                *field = value;
        }
        if (iMin && iMax && iP99 && iCv)
            out.iterations = NcclTestsIterationStats { *iMin, *iMax, *iP99, *iCv, std::nullopt, {} };
        return true;
    }

    /// Where nccl-tests' own failure report starts in a line, npos when there is none. src/common.h prints
    /// "HOST: Test CUDA failure FILE:LINE 'reason'", "HOST: Test NCCL failure ..." and " .. HOST pid PID:
    /// Test failure FILE:LINE"; the first is printed right after the size's columns when a call fails, so
    /// it ends a result row.
    std::size_t failureReportAt(std::string_view text)
    {
        for (const char* what : { "Test CUDA failure", "Test NCCL failure", "Test failure" }) {
            const std::size_t at = text.find(what);
            if (at == std::string_view::npos)
                continue;
            // Back to the "HOST: " before it.
            const std::size_t colon = at >= 2 ? text.rfind(':', at - 2) : std::string_view::npos;
            std::size_t start = at;
            if (colon != std::string_view::npos && colon + 2 == at) {
                start = text.rfind(' ', colon);
                start = start == std::string_view::npos ? 0 : start + 1;
            }
            return start;
        }
        return std::string_view::npos;
    }

    /// The nccl-tests binary a word of a quoted command names ("./build/all_reduce_perf" -> "all_reduce_perf"),
    /// empty when it names none: "<collective>_perf" or "<collective>_perf_mpi" (NVIDIA/nccl-tests src/Makefile)
    /// of a benchmark this importer knows.
    std::string_view perfBinaryName(std::string_view word)
    {
        if (const auto slash = word.find_last_of('/'); slash != std::string_view::npos)
            word.remove_prefix(slash + 1);
        const bool perf = (word.size() > 5 && word.substr(word.size() - 5) == "_perf")
            || (word.size() > 9 && word.substr(word.size() - 9) == "_perf_mpi");
        return perf && (ncclTestsCollectiveFromName(word) || ncclTestsIsAlltoallv(word)) ? word : std::string_view();
    }

    /// The ranks a quoted nccl-tests command starts (NcclTestsRun::commandRanks): the launcher's process
    /// count (mpirun / mpiexec -np N, -n N, --np N; srun -n N, --ntasks N, --ntasks=N; 1 without a launcher)
    /// x the benchmark's -t / --nthreads x -g / --ngpus (src/common.cu: nProcs x nThreads x nGpus ranks).
    /// 0 when a launcher is named but its process count is not (srun -N alone, mpirun from a hostfile).
    int commandRanks(const std::vector<std::string_view>& t)
    {
        auto number = [](std::string_view v) { return parseInteger<int>(v).value_or(0); };
        bool launcher = false, benchmark = false;
        int processes = 0, threads = 1, gpus = 1;
        for (std::size_t i = 0; i < t.size(); ++i) {
            std::string_view w = t[i];
            const std::string_view next = i + 1 < t.size() ? t[i + 1] : std::string_view();
            std::string_view name = w;
            if (const auto slash = name.find_last_of('/'); slash != std::string_view::npos)
                name.remove_prefix(slash + 1);
            if (!benchmark && (name == "mpirun" || name == "mpiexec" || name == "srun" || name == "orterun"))
                launcher = true;
            else if (!perfBinaryName(w).empty())
                benchmark = true;
            else if (!benchmark && launcher && (w == "-np" || w == "-n" || w == "--np" || w == "--ntasks"))
                processes = number(next);
            else if (!benchmark && launcher && w.rfind("--ntasks=", 0) == 0)
                processes = number(w.substr(9));
            else if (benchmark && (w == "-g" || w == "--ngpus"))
                gpus = number(next);
            else if (benchmark && (w == "-t" || w == "--nthreads"))
                threads = number(next);
        }
        if (!benchmark || threads < 1 || gpus < 1)
            return 0;
        if (!launcher)
            processes = 1;
        const long long ranks = 1LL * processes * threads * gpus;
        return ranks >= 1 && ranks <= (1LL << 24) ? static_cast<int>(ranks) : 0;
    }

    void TextParser::dataRow(const NcclTestsLine& line)
    {
        const auto& t = line.tokens;
        // A call failed while this size ran: nccl-tests printed its failure after the size's first columns
        // and aborted. The sizes before it are kept; the failure is what to report if there are none.
        if (const std::size_t at = failureReportAt(line.text); at != std::string_view::npos) {
            const std::string failure(line.text.substr(at));
            const std::string size = t.empty() ? std::string("?") : std::string(t[0]);
            diag("run-aborted", line.number,
                "the run aborted at " + size + " B: " + failure + " (sizes after it were not measured)",
                NcclTestsSeverity::Error);
            if (m_firstFailure.empty())
                m_firstFailure = where(line.number) + "the run aborted at " + size + " B: " + failure;
            return;
        }
        auto bad = [&](const char* id, const std::string& message) {
            diag(id, line.number, message + "; row skipped");
            if (m_badRows++ == 0)
                m_firstBadRow = where(line.number) + message;
        };
        if (t.size() < 3) {
            bad("row-columns",
                "a result row needs at least size, count and type, found " + std::to_string(t.size()) + " value(s)");
            return;
        }
        NcclTestsRow row;
        row.line = line.number;
        const auto bytes = parseInteger<std::uint64_t>(t[0]);
        const auto count = parseInteger<std::uint64_t>(t[1]);
        if (!bytes || !count) {
            bad("row-number",
                "cannot read the size and count \"" + std::string(t[0]) + " " + std::string(t[1])
                    + "\" as byte and element counts");
            return;
        }
        row.bytes = *bytes;
        row.count = *count;
        if (isNumeric(t[2])) {
            bad("row-columns",
                "expected a type name (float, bfloat16, ...) in the third column, found \"" + std::string(t[2]) + "\"");
            return;
        }
        row.type = std::string(t[2]);
        std::size_t i = 3;
        // hypercube_perf prints an empty redop: the column is there in the header but not in the row.
        if (i < t.size() && !isNumeric(t[i]))
            row.redop = std::string(t[i++]);
        if (m_layout && m_layout->hasRedop && row.redop.empty())
            current().emptyRedopColumn = true;

        if (!m_layout) {
            // No column titles (a pasted table): guess from the number of values, as in util.cu.
            ColumnLayout guess;
            const std::size_t values = t.size() - i;
            guess.hasRedop = !row.redop.empty();
            guess.hasRoot = values % 4 == 1 || values % 8 == 1;
            const std::size_t stats = values - (guess.hasRoot ? 1 : 0);
            guess.half = { "time", "algbw", "busbw", "#wrong" };
            if (stats == 16)
                guess.half.insert(guess.half.end(), { "i_min", "i_max", "i_p99", "i_cv%" });
            m_layout = guess;
            diag("no-column-header", line.number,
                "no column header before the first result row; assuming the standard nccl-tests layout");
        }
        if (m_layout->hasRoot) {
            const auto root = i < t.size() ? parseInteger<int>(t[i]) : std::nullopt;
            if (!root) {
                bad("row-columns",
                    "expected the root (an integer) after the type"
                        + std::string(m_layout->hasRedop ? " and redop" : ""));
                return;
            }
            row.root = *root;
            ++i;
        }
        const std::size_t half = m_layout->half.size();
        std::size_t values = t.size() - i;
        if (m_layout->timestamp && values >= half + 2)
            values -= 2; // "YYYY-MM-DD HH:MM:SS" after the in-place half (-S 1)
        if (values != 2 * half && values != half) {
            bad("row-columns",
                "expected " + std::to_string(2 * half) + " values after the "
                    + (m_layout->hasRoot ? std::string("root") : std::string("type")) + " column"
                    + (m_layout->line ? " (per the column header at line " + std::to_string(m_layout->line) + ")"
                                      : std::string())
                    + ", found " + std::to_string(values));
            return;
        }
        if (values == 2 * half) {
            row.outOfPlace.emplace();
            if (!readHalf(line, i, *row.outOfPlace))
                return;
            i += half;
        }
        if (!readHalf(line, i, row.inPlace))
            return;
        current().rows.push_back(std::move(row));
    }

    void TextParser::ncclVersionBanner(const std::vector<std::string_view>& t)
    {
        // rccl-tests' library block: "RCCL version : 2.22.3-HEAD:7d8d67c" (then HIP and ROCm versions).
        if (t.size() >= 4 && t[0] == "RCCL" && t[1] == "version" && t[2] == ":" && current().rcclVersion.empty()) {
            std::string_view v = t[3];
            v = v.substr(0, v.find('-'));
            if (!v.empty() && v.find_first_not_of("0123456789.") == std::string_view::npos)
                current().rcclVersion = std::string(v);
            return;
        }
        // "NCCL version 2.26.2+cuda12.8" (NCCL's NCCL_DEBUG=VERSION banner, printed by rank 0 at init, alone
        // or after "HOST:PID:TID [DEV] NCCL INFO"): the library the run used, as nccl-tests' own header says it
        // from 2.13 on (nccl-library=22602, NCCL_VERSION_CODE = major x 10000 + minor x 100 + patch). RCCL's
        // "RCCL version" (above) is another library: kept apart, never taken as an NCCL version.
        for (std::size_t i = 0; i + 2 < t.size(); ++i) {
            if (t[i] != "NCCL" || t[i + 1] != "version" || current().ncclVersionCode)
                continue;
            const std::string_view v = t[i + 2];
            const std::size_t dot1 = v.find('.');
            const std::size_t dot2 = dot1 == std::string_view::npos ? dot1 : v.find('.', dot1 + 1);
            if (dot2 == std::string_view::npos)
                break;
            std::size_t end = dot2 + 1;
            while (end < v.size() && v[end] >= '0' && v[end] <= '9')
                ++end;
            const auto major = parseInteger<int>(v.substr(0, dot1));
            const auto minor = parseInteger<int>(v.substr(dot1 + 1, dot2 - dot1 - 1));
            const auto patch = parseInteger<int>(v.substr(dot2 + 1, end - dot2 - 1));
            if (major && minor && patch && *major == 2 && *minor >= 9 && *minor < 100 && *patch < 100)
                current().ncclVersionCode = *major * 10000 + *minor * 100 + *patch;
            break;
        }
    }

    void TextParser::otherLine(const NcclTestsLine& line)
    {
        const auto& t = line.tokens;
        // rccl-tests (ROCm/rccl-tests src/common.cu) prints "rccl-tests: Version develop:448c4c7" where
        // nccl-tests prints "# nccl-tests version ...": the start of a run, and the suite's version.
        if (t.size() >= 3 && t[0] == "rccl-tests:" && t[1] == "Version") {
            startRunIf(!current().ncclTestsVersion.empty(), line.number);
            current().ncclTestsVersion = "rccl-tests " + std::string(t[2]);
            return;
        }
        // A pasted excerpt that left rows out: "...", "…", "[...]".
        bool elision = true;
        for (const auto token : t)
            elision = elision && (token == "..." || token == "\xE2\x80\xA6" || token == "[...]" || token == "....");
        if (elision) {
            if (!current().elidedRows)
                diag("elided-rows", line.number, "the table has a \"...\" line: rows were left out of this excerpt");
            current().elidedRows = true;
            return;
        }
        // A banner between rows ("====== 2-node ======" of a script running the benchmark several times,
        // Open MPI's "-----" warning frames): a run may end there; splitHeaderlessRuns decides.
        if (const std::string_view head = t.front(); head.size() >= 3
            && (head.front() == '=' || head.front() == '-' || head.front() == '*')
            && head.find_first_not_of(head.front()) == std::string_view::npos) {
            if (!current().rows.empty())
                current().separatorLines.push_back(line.number);
        }
        // The command a page quotes with its output ("mpirun -np 16 ./build/all_reduce_perf -b 8 -e 8G", "$ srun
        // ... all_gather_perf_mpi ..."): an nccl-tests binary, named "<collective>_perf" or "<collective>_perf_mpi"
        // (NVIDIA/nccl-tests src/Makefile), as a word of the line. It names the collective of the run that follows
        // when the run does not name its binary itself; after a table it starts the next run.
        for (const auto token : t) {
            const std::string_view name = perfBinaryName(token);
            if (name.empty())
                continue;
            if (!current().rows.empty())
                startRun(line.number);
            current().commandBinary = std::string(name);
            current().commandRanks = commandRanks(t);
            // The environment the command sets ("mpirun -x NCCL_ALGO=Ring ...", "NCCL_ALGO=Tree ./build/...",
            // "export NCCL_ALGO=Ring; mpirun ..."), read as the -J "env" is: NCCL_ALGO pins the algorithm,
            // NCCL_TESTS_ALLTOALLV_SPREAD / _MATRIX_FILE state alltoallv_perf's pattern.
            for (std::string_view w : t) {
                // A shell word: "NCCL_ALGO=Ring", "NCCL_ALGO='Tree';" or "'NCCL_ALGO=Tree'".
                while (!w.empty() && w.back() == ';')
                    w.remove_suffix(1);
                if (w.size() >= 2 && (w.front() == '"' || w.front() == '\'') && w.back() == w.front())
                    w = w.substr(1, w.size() - 2);
                readNcclTestsEnvironment(w, current());
            }
            return;
        }
        ncclVersionBanner(t);
        // "HOST:PID:TID [DEV] NCCL INFO AllGather: opCount 0 sendbuff ... count ... datatype ... op ... root ..."
        // (NCCL src/enqueue.cc, NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL): names the operation the run times.
        for (std::size_t i = 0; i + 3 < t.size(); ++i) {
            if (t[i] != "NCCL" || t[i + 1] != "INFO")
                continue;
            // "NCCL INFO Using network IB" (src/init.cc): the net transport; a plugin's name may hold spaces.
            if (t[i + 2] == "Using" && t[i + 3] == "network" && i + 4 < t.size()) {
                std::string net(t[i + 4]);
                for (std::size_t k = i + 5; k < t.size(); ++k)
                    net += " " + std::string(t[k]);
                current().ncclNet = net;
                break;
            }
            const std::string_view op = t[i + 2];
            if (op.size() < 2 || op.back() != ':' || t[i + 3] != "opCount")
                break;
            const std::string name(op.substr(0, op.size() - 1));
            auto& ops = current().ncclInfoOps;
            if (std::find(ops.begin(), ops.end(), name) == ops.end() && ops.size() < 16)
                ops.push_back(name);
            break;
        }
    }

    engine::Result<NcclTestsLog> TextParser::run(std::string_view text)
    {
        NcclTestsTokenizer tokenizer(text);
        NcclTestsLine line;
        startRun(1);
        bool any = false;
        while (tokenizer.next(line)) {
            any = any || line.kind != NcclTestsLineKind::Blank;
            switch (line.kind) {
            case NcclTestsLineKind::Blank:
                break;
            case NcclTestsLineKind::Comment:
                if (auto status = comment(line); !status.isOk())
                    return status;
                break;
            case NcclTestsLineKind::Data:
                dataRow(line);
                break;
            case NcclTestsLineKind::Other:
                otherLine(line);
                // nccl-tests reports a failed call as "HOST: Test NCCL failure FILE:LINE 'reason'".
                if (m_firstFailure.empty()
                    && (line.text.find("NCCL failure") != std::string_view::npos
                        || line.text.find("Test failure") != std::string_view::npos
                        || line.text.find("CUDA failure") != std::string_view::npos))
                    m_firstFailure = where(line.number) + std::string(line.text);
                break;
            }
        }
        if (!any)
            return engine::Status::error(m_file + ": the file is empty");
        return finishNcclTestsLog(std::move(m_log), m_options, m_firstBadRow, m_firstFailure);
    }

} // namespace

engine::Result<NcclTestsLog> NcclTestsParser::parse(
    std::string_view text, const std::string& fileName, const NcclTestsParseOptions& options)
{
    TextParser parser(fileName, options);
    return parser.run(text);
}

} // namespace clusterscope::importers
