#include "app/gui/comparedialog.h"

#include "engine/catalog/catalog.h"
#include "engine/fabric/pricebook.h"
#include "views/charts/breakdownchart.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QFutureWatcher>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>
#include <functional>

namespace clusterscope::app {

namespace {
    using Analyses = std::array<std::shared_ptr<const engine::ScenarioAnalysis>, 2>;

    struct Figure {
        const char* name;
        const char* unit;
        int decimals;
        std::function<std::optional<double>(const engine::ScenarioAnalysis&)> value;
    };

    std::optional<double> fromEstimate(
        const engine::ScenarioAnalysis& a, double engine::TrainingEstimate::*field, double scale = 1)
    {
        if (!a.estimate)
            return std::nullopt;
        return (*a.estimate).*field * scale;
    }

    const std::vector<Figure>& figures()
    {
        static const std::vector<Figure> list = {
            { "Iteration time", "s", 3,
                [](const auto& a) { return fromEstimate(a, &engine::TrainingEstimate::iterationSeconds); } },
            { "Tokens per second", "", 0,
                [](const auto& a) { return fromEstimate(a, &engine::TrainingEstimate::tokensPerSecond); } },
            { "Model TFLOP/s per GPU", "", 1,
                [](const auto& a) { return fromEstimate(a, &engine::TrainingEstimate::tflopsPerGpu); } },
            { "MFU", "%", 1, [](const auto& a) { return fromEstimate(a, &engine::TrainingEstimate::mfu, 100); } },
            { "Exposed communication", "% of iteration", 1,
                [](const auto& a) { return fromEstimate(a, &engine::TrainingEstimate::networkShare, 100); } },
            { "Fabric contention (spine)", "x", 2,
                [](const auto& a) -> std::optional<double> { return a.load.spineSlowdown; } },
            { "Time to train the budget", "days", 1,
                [](const auto& a) {
                    return fromEstimate(a, &engine::TrainingEstimate::trainingSeconds, 1.0 / 86400);
                } },
            { "Cost to train the budget", "M$", 2,
                [](const auto& a) { return fromEstimate(a, &engine::TrainingEstimate::trainingCostUsd, 1e-6); } },
            { "Network cost", "M$", 2,
                [](const auto& a) -> std::optional<double> {
                    if (!a.bom)
                        return std::nullopt;
                    return a.bom->networkCostUsd / 1e6;
                } },
            { "Network cost per GPU", "$", 0,
                [](const auto& a) -> std::optional<double> {
                    if (!a.bom)
                        return std::nullopt;
                    return a.bom->networkCostPerGpuUsd();
                } },
            { "Network share of cluster cost", "%", 1,
                [](const auto& a) -> std::optional<double> {
                    if (!a.bom)
                        return std::nullopt;
                    return a.bom->networkShare() * 100;
                } },
            { "Cluster cost", "M$", 2,
                [](const auto& a) -> std::optional<double> {
                    if (!a.bom)
                        return std::nullopt;
                    return a.bom->clusterCostUsd / 1e6;
                } },
            { "Network power", "kW", 1,
                [](const auto& a) -> std::optional<double> {
                    if (!a.bom)
                        return std::nullopt;
                    return a.bom->networkPowerWatts / 1e3;
                } },
            { "Switches", "", 0,
                [](const auto& a) -> std::optional<double> {
                    if (!a.fabric)
                        return std::nullopt;
                    double n = 0;
                    for (auto c : a.fabric->graph.switchesPerTier())
                        n += double(c);
                    return n;
                } },
        };
        return list;
    }
} // namespace

CompareDialog::CompareDialog(const std::vector<engine::Scenario>& scenarios, int first, int second,
    const engine::Catalog& catalog, const engine::PriceBook& prices, QWidget* parent)
    : QDialog(parent)
    , m_scenarios(scenarios)
    , m_catalog(catalog)
    , m_prices(prices)
{
    setWindowTitle(tr("Compare scenarios"));
    resize(1200, 800);
    auto* layout = new QVBoxLayout(this);
    auto* pick = new QHBoxLayout;
    m_a = new QComboBox(this);
    m_b = new QComboBox(this);
    for (const auto& s : m_scenarios) {
        m_a->addItem(QString::fromStdString(s.name));
        m_b->addItem(QString::fromStdString(s.name));
    }
    m_a->setCurrentIndex(first);
    m_b->setCurrentIndex(second);
    pick->addWidget(new QLabel(tr("A:"), this));
    pick->addWidget(m_a, 1);
    pick->addWidget(new QLabel(tr("B:"), this));
    pick->addWidget(m_b, 1);
    layout->addLayout(pick);
    auto* split = new QSplitter(Qt::Vertical, this);
    m_table = new QTableWidget(split);
    m_table->setColumnCount(4);
    m_table->setHorizontalHeaderLabels({ tr("Figure"), tr("A"), tr("B"), tr("B vs A") });
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_chart = new views::BreakdownChart(split);
    split->addWidget(m_table);
    split->addWidget(m_chart);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);
    m_status = new QLabel(this);
    layout->addWidget(m_status);
    connect(m_a, &QComboBox::currentIndexChanged, this, &CompareDialog::compare);
    connect(m_b, &QComboBox::currentIndexChanged, this, &CompareDialog::compare);
    compare();
}

CompareDialog::~CompareDialog()
{
    for (auto* watcher : findChildren<QFutureWatcher<Analyses>*>()) {
        watcher->disconnect(this);
        watcher->future().waitForFinished();
    }
}

void CompareDialog::compare()
{
    const engine::Scenario a = m_scenarios[std::size_t(std::max(0, m_a->currentIndex()))];
    const engine::Scenario b = m_scenarios[std::size_t(std::max(0, m_b->currentIndex()))];
    m_status->setText(tr("Evaluating both scenarios..."));
    ++m_running;
    auto* watcher = new QFutureWatcher<Analyses>(this);
    connect(watcher, &QFutureWatcher<Analyses>::finished, this, [this, watcher] {
        --m_running;
        const Analyses result = watcher->result();
        watcher->deleteLater();
        if (m_running == 0) // newest request wins
            showComparison(result);
    });
    const engine::Catalog& catalog = m_catalog;
    const engine::PriceBook& prices = m_prices;
    watcher->setFuture(QtConcurrent::run([a, b, &catalog, &prices]() -> Analyses {
        engine::AnalysisOptions options;
        options.searchTopK = 1;
        options.timeContention = false;
        return { std::make_shared<const engine::ScenarioAnalysis>(engine::analyseScenario(a, catalog, prices, options)),
            std::make_shared<const engine::ScenarioAnalysis>(engine::analyseScenario(b, catalog, prices, options)) };
    }));
}

void CompareDialog::showComparison(const Analyses& analyses)
{
    const QLocale locale;
    const auto& list = figures();
    m_table->setRowCount(int(list.size()));
    for (int row = 0; row < int(list.size()); ++row) {
        const Figure& f = list[std::size_t(row)];
        const QString unit = QString::fromLatin1(f.unit);
        m_table->setItem(row, 0,
            new QTableWidgetItem(
                unit.isEmpty() ? tr(f.name) : tr(f.name) + QStringLiteral(" (") + unit + QLatin1Char(')')));
        std::optional<double> values[2];
        for (int c = 0; c < 2; ++c) {
            values[c] = f.value(*analyses[std::size_t(c)]);
            auto* item = new QTableWidgetItem(values[c] ? locale.toString(*values[c], 'f', f.decimals) : tr("n/a"));
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, c + 1, item);
        }
        QString diff = tr("n/a");
        if (values[0] && values[1] && std::abs(*values[0]) > 0)
            diff = QStringLiteral("%1%2%")
                       .arg(*values[1] >= *values[0] ? QStringLiteral("+") : QString())
                       .arg(locale.toString((*values[1] / *values[0] - 1) * 100, 'f', 1));
        auto* item = new QTableWidgetItem(diff);
        item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, 3, item);
    }
    m_table->resizeColumnsToContents();
    std::vector<views::LabelledBreakdown> bars;
    QStringList problems;
    const QString names[2] = { QStringLiteral("A: ") + m_a->currentText(), QStringLiteral("B: ") + m_b->currentText() };
    for (int c = 0; c < 2; ++c) {
        const auto& a = *analyses[std::size_t(c)];
        if (a.estimate)
            bars.push_back(views::BreakdownChart::fromEstimate(names[c], *a.estimate));
        else
            problems << names[c] + QStringLiteral(": ")
                    + QString::fromStdString(a.issues.empty() ? a.trainingError : engine::issuesText(a.issues, true));
    }
    if (bars.empty())
        m_chart->setEmptyState(problems.join(QLatin1Char('\n')));
    else
        m_chart->setBreakdowns(bars);
    m_status->setText(problems.isEmpty() ? tr("Both scenarios evaluated.") : problems.join(QStringLiteral("; ")));
}

void CompareDialog::waitUntilDone()
{
    while (m_running > 0)
        QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
}

} // namespace clusterscope::app
