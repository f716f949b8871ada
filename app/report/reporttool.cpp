#include "app/report/reporttool.h"

#include "app/report/reportbuilder.h"
#include "app/report/reportwriter.h"
#include "engine/analysis/runcomputecalibration.h"
#include "engine/calibration/calibrationjson.h"
#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"
#include "engine/scenario/scenariojson.h"
#include "engine/scenario/scenariovalidator.h"
#include "engine/store/projectdocuments.h"
#include "engine/store/projectstore.h"
#include "engine/store/runstore.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTextStream>

#include <optional>

namespace clusterscope::app {

using namespace clusterscope::engine;

namespace {

    struct Arguments {
        QString file;
        QString scenario;
        QStringList compare;
        QString pdf, html, bomCsv;
        QString calibration;
        QString catalog, prices;
        bool sensitivity = true;
        bool help = false;
    };

    Result<Arguments> parseArguments(const QStringList& args)
    {
        Arguments a;
        const QStringList valued { QStringLiteral("--scenario"), QStringLiteral("--pdf"), QStringLiteral("--html"),
            QStringLiteral("--bom-csv"), QStringLiteral("--calibration"), QStringLiteral("--catalog"),
            QStringLiteral("--prices") };
        for (qsizetype i = 0; i < args.size(); ++i) {
            QString name = args[i];
            std::optional<QString> inlineValue;
            if (name.startsWith(QStringLiteral("--")) && name.contains(QLatin1Char('='))) {
                inlineValue = name.mid(name.indexOf(QLatin1Char('=')) + 1);
                name = name.left(name.indexOf(QLatin1Char('=')));
            }
            if (name == QStringLiteral("--help") || name == QStringLiteral("-h")) {
                a.help = true;
            } else if (name == QStringLiteral("--no-sensitivity")) {
                a.sensitivity = false;
            } else if (name == QStringLiteral("--compare")) {
                if (inlineValue)
                    a.compare << *inlineValue;
                // NAME...: every following word up to the next option.
                while (i + 1 < args.size() && !args[i + 1].startsWith(QStringLiteral("--")))
                    a.compare << args[++i];
                if (a.compare.isEmpty())
                    return Status::error("option --compare needs at least one scenario NAME");
            } else if (valued.contains(name)) {
                QString value;
                if (inlineValue) {
                    value = *inlineValue;
                } else {
                    if (i + 1 >= args.size())
                        return Status::error("option " + name.toStdString() + " needs a value");
                    value = args[++i];
                }
                if (name == QStringLiteral("--scenario"))
                    a.scenario = value;
                else if (name == QStringLiteral("--pdf"))
                    a.pdf = value;
                else if (name == QStringLiteral("--html"))
                    a.html = value;
                else if (name == QStringLiteral("--bom-csv"))
                    a.bomCsv = value;
                else if (name == QStringLiteral("--calibration"))
                    a.calibration = value;
                else if (name == QStringLiteral("--catalog"))
                    a.catalog = value;
                else
                    a.prices = value;
            } else if (name.startsWith(QLatin1Char('-')) && name.size() > 1) {
                return Status::error("unknown option " + name.toStdString() + " (see --help)");
            } else if (a.file.isEmpty()) {
                a.file = name;
            } else {
                return Status::error("unexpected argument \"" + name.toStdString() + "\": give one FILE (see --help)");
            }
        }
        return a;
    }

    bool isProject(const QString& path)
    {
        QFile f(path);
        return f.open(QIODevice::ReadOnly) && f.read(16).startsWith("SQLite format 3");
    }

    /// An output's folder must exist and be writable before the analysis runs.
    Status checkWritable(const QString& path)
    {
        if (path.isEmpty())
            return Status::success();
        const QFileInfo info(path);
        const QFileInfo dir(info.absolutePath());
        if (!dir.isDir())
            return Status::error("cannot write " + path.toStdString() + ": the folder " + dir.filePath().toStdString()
                + " does not exist");
        if (!dir.isWritable() || (info.exists() && !info.isWritable()))
            return Status::error("cannot write " + path.toStdString() + ": permission denied");
        if (info.isDir())
            return Status::error("cannot write " + path.toStdString() + ": it is a folder");
        return Status::success();
    }

    struct Loaded {
        std::vector<Scenario> scenarios;
        std::optional<CalibrationSet> calibration;
        QString calibrationName;
        std::optional<ProjectComputeCalibration> computeCalibration;
        std::optional<ReportRun> run; ///< the project's newest imported run
    };

    Result<Scenario> validated(Scenario scenario, const Catalog& catalog, const std::string& origin)
    {
        if (auto status = validateScenario(scenario, catalog, origin); !status)
            return status;
        return scenario;
    }

    Result<Loaded> loadProject(const Arguments& a, const Catalog& catalog)
    {
        const std::string path = a.file.toStdString();
        auto store = ProjectStore::open(path);
        if (!store)
            return store.status();
        auto stored = store->scenarios();
        if (!stored)
            return stored.status();
        std::string names;
        for (const StoredScenario& s : *stored)
            names += (names.empty() ? "\"" : ", \"") + s.scenario.name + "\"";
        if (stored->empty())
            return Status::error(path + ": the project holds no scenario");
        const auto find = [&](const QString& name) -> Result<Scenario> {
            for (const StoredScenario& s : *stored)
                if (QString::fromStdString(s.scenario.name) == name)
                    return validated(s.scenario, catalog, path + ": scenario \"" + s.scenario.name + "\"");
            return Status::error(
                path + ": no scenario named \"" + name.toStdString() + "\" (the project holds " + names + ")");
        };
        Loaded loaded;
        if (a.scenario.isEmpty() && stored->size() > 1)
            return Status::error(path + ": the project holds " + std::to_string(stored->size())
                + " scenarios; pass --scenario NAME (one of " + names + ")");
        auto subject = find(a.scenario.isEmpty() ? QString::fromStdString(stored->front().scenario.name) : a.scenario);
        if (!subject)
            return subject.status();
        loaded.scenarios.push_back(*subject);
        for (const QString& name : a.compare) {
            auto other = find(name);
            if (!other)
                return other.status();
            loaded.scenarios.push_back(*other);
        }
        // The newest imported run gets the measured-run section (as the GUI shows it first).
        auto runs = RunStore(*store).list();
        if (!runs)
            return runs.status();
        if (!runs->empty()) {
            auto run = RunStore(*store).load(runs->back().id);
            if (!run)
                return run.status();
            loaded.run = ReportRun { QString::fromStdString(run->summary.name), std::move(run->analysis) };
        }
        auto calibrations = store->documentNames(kCalibrationDocumentKind);
        if (!calibrations)
            return calibrations.status();
        std::string chosen = a.calibration.toStdString();
        if (chosen.empty() && !calibrations->empty())
            chosen = calibrations->front();
        if (!chosen.empty()) {
            auto json = store->document(kCalibrationDocumentKind, chosen);
            if (!json)
                return Status::error(path + ": no calibration named \"" + chosen + "\"");
            auto set = calibrationFromJson(*json, path + ": calibration \"" + chosen + "\"");
            if (!set)
                return set.status();
            loaded.calibration = std::move(*set);
            loaded.calibrationName = QString::fromStdString(chosen);
        }
        // The compute calibration (calibrate-compute --project, or the GUI's Calibrate from this run).
        auto compute = readProjectComputeCalibration(*store, path);
        if (!compute)
            return compute.status();
        loaded.computeCalibration = std::move(*compute);
        return loaded;
    }

    Result<Loaded> loadScenarioFiles(const Arguments& a, const Catalog& catalog)
    {
        if (!a.calibration.isEmpty())
            return Status::error("--calibration needs a project FILE (a scenario file holds no calibration)");
        Loaded loaded;
        QStringList files { a.file };
        files << a.compare; // with a scenario file, --compare names other scenario files
        for (const QString& file : files) {
            auto scenario = loadScenarioFile(file.toStdString());
            if (!scenario)
                return scenario.status();
            if (file == a.file && !a.scenario.isEmpty() && QString::fromStdString(scenario->name) != a.scenario)
                return Status::error(file.toStdString() + ": the scenario is named \"" + scenario->name + "\", not \""
                    + a.scenario.toStdString() + "\"");
            auto valid = validated(*scenario, catalog, file.toStdString());
            if (!valid)
                return valid.status();
            loaded.scenarios.push_back(*valid);
        }
        return loaded;
    }

} // namespace

QString reportToolUsage(const QString& program)
{
    return QStringLiteral("Usage: ") + program
        + QStringLiteral(
            " FILE [--scenario NAME] [--compare NAME...] [--pdf OUT] [--html OUT] [--bom-csv OUT]\n"
            "       [--calibration NAME] [--catalog DIR] [--prices FILE] [--no-sensitivity]\n\n"
            "Writes the procurement report of a scenario (or a comparison of scenarios): summary, fabric\n"
            "schematic, bill of materials with prices and power, predicted performance with the iteration\n"
            "breakdown, link utilisation and oversubscription findings, a sensitivity table (1:1, 2:1, 3:1,\n"
            "InfiniBand vs RoCE, next GPU count up), assumptions and calibration status.\n"
            "  FILE              a scenario JSON file or a ClusterScope project (.csproj)\n"
            "  --scenario NAME   the project's scenario to report (needed when it holds several)\n"
            "  --compare NAME... scenarios to compare with it (project: names; scenario file: files)\n"
            "  --pdf OUT         write the report as PDF (A4)\n"
            "  --html OUT        write the report as one self-contained HTML file\n"
            "  --bom-csv OUT     write the bill of materials as CSV\n"
            "  --calibration NAME  the project's stored calibration to report (default: the first)\n"
            "  --catalog DIR     use the catalog JSON files in DIR\n"
            "  --prices FILE     use this price book instead of the built-in one\n"
            "  --no-sensitivity  skip the sensitivity table\n"
            "Exit 0 on success, 1 on bad input or a file that cannot be written.\n");
}

int runReportTool(const QStringList& args, QTextStream& out, QTextStream& err, const QString& program)
{
    const auto fail = [&](const std::string& message) {
        err << program << ": " << QString::fromStdString(message) << "\n";
        err.flush();
        return 1;
    };
    auto parsed = parseArguments(args);
    if (!parsed)
        return fail(parsed.message());
    const Arguments& a = *parsed;
    if (a.help) {
        out << reportToolUsage(program);
        return 0;
    }
    if (a.file.isEmpty())
        return fail("expected one scenario or project FILE (see --help)");
    if (a.pdf.isEmpty() && a.html.isEmpty() && a.bomCsv.isEmpty())
        return fail("nothing to write: give --pdf OUT, --html OUT or --bom-csv OUT");
    if (!QFileInfo::exists(a.file))
        return fail(a.file.toStdString() + ": no such file");
    for (const QString& output : { a.pdf, a.html, a.bomCsv })
        if (auto status = checkWritable(output); !status)
            return fail(status.message());

    auto catalog = a.catalog.isEmpty() ? Catalog::builtin() : Catalog::loadFromDirectory(a.catalog.toStdString());
    if (!catalog)
        return fail(catalog.message());
    auto prices = a.prices.isEmpty() ? PriceBook::builtin() : PriceBook::loadFile(a.prices.toStdString());
    if (!prices)
        return fail(prices.message());
    auto loaded = isProject(a.file) ? loadProject(a, *catalog) : loadScenarioFiles(a, *catalog);
    if (!loaded)
        return fail(loaded.message());

    ReportInput input;
    input.scenarios = loaded->scenarios;
    input.catalog = &*catalog;
    input.prices = &*prices;
    input.priceBookName = a.prices.isEmpty() ? QStringLiteral("built-in price book")
                                             : QStringLiteral("price book ") + QFileInfo(a.prices).fileName();
    input.sourceName = QFileInfo(a.file).fileName();
    input.calibration = loaded->calibration;
    input.calibrationName = loaded->calibrationName;
    input.computeCalibration = loaded->computeCalibration;
    input.sensitivity = a.sensitivity;
    input.run = loaded->run;
    auto report = buildReport(input);
    if (!report)
        return fail(a.file.toStdString() + ": " + report.message());

    if (!a.pdf.isEmpty()) {
        auto pages = writePdf(*report, a.pdf);
        if (!pages)
            return fail(pages.message());
        out << "wrote " << a.pdf << " (" << *pages << " pages)\n";
    }
    if (!a.html.isEmpty()) {
        if (auto status = writeHtml(*report, a.html); !status)
            return fail(status.message());
        out << "wrote " << a.html << "\n";
    }
    if (!a.bomCsv.isEmpty()) {
        if (auto status = writeBomCsv(*report, a.bomCsv); !status)
            return fail(status.message());
        out << "wrote " << a.bomCsv << "\n";
    }
    return 0;
}

} // namespace clusterscope::app
