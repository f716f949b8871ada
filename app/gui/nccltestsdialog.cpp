#include "app/gui/nccltestsdialog.h"

#include "app/cli/clicommand.h"
#include "engine/scenario/scenariojson.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QLegend>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPushButton>
#include <QScatterSeries>
#include <QSplitter>
#include <QTemporaryFile>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <sstream>

namespace clusterscope::app {

namespace {

    /// Three significant digits, as the CLI prints busbw ("0.0123", "1.23", "12.3", "123").
    QString sig3(double v)
    {
        if (!(v > 0) || !std::isfinite(v))
            return v == 0 ? QStringLiteral("0") : QStringLiteral("-");
        if (v >= 100)
            return QString::number(v, 'f', 0);
        const int decimals = std::min(9, 2 - static_cast<int>(std::floor(std::log10(v))));
        return QString::number(v, 'f', decimals);
    }

    QString percent(double v) { return QString::number(100 * v, 'f', 1) + QStringLiteral("%"); }

    QString str(const QJsonValue& v) { return v.toString().toHtmlEscaped(); }

} // namespace

NcclTestsDialog::NcclTestsDialog(
    QString logPath, QString projectPath, std::vector<engine::Scenario> scenarios, QWidget* parent)
    : QDialog(parent)
    , m_logPath(std::move(logPath))
    , m_projectPath(std::move(projectPath))
    , m_scenarios(std::move(scenarios))
    , m_cluster(new QComboBox(this))
    , m_status(new QLabel(this))
    , m_sweep(new QComboBox(this))
    , m_chart(new QChartView(this))
    , m_report(new QTextBrowser(this))
    , m_store(new QPushButton(tr("Store calibration in the project"), this))
{
    setWindowTitle(tr("nccl-tests log: %1").arg(QFileInfo(m_logPath).fileName()));
    resize(1100, 760);
    m_cluster->addItem(tr("as the log's header says (GPU from the device names, nodes from the hosts)"));
    for (const auto& s : m_scenarios)
        m_cluster->addItem(tr("the cluster of scenario \"%1\"").arg(QString::fromStdString(s.name)));
    auto* form = new QFormLayout;
    form->addRow(tr("Cluster:"), m_cluster);
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_report->setOpenLinks(false);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(m_store, QDialogButtonBox::ActionRole);
    m_store->setToolTip(m_projectPath.isEmpty()
            ? tr("Save the project to a file first: the calibration is stored in the project file")
            : tr("As clusterscope-cli import-nccl-tests LOG --project %1: evaluate and search then use it")
                  .arg(QFileInfo(m_projectPath).fileName()));
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumHeight(260);
    auto* splitter = new QSplitter(Qt::Vertical, this);
    auto* chartPane = new QWidget(splitter);
    auto* chartLayout = new QVBoxLayout(chartPane);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->addWidget(m_sweep);
    chartLayout->addWidget(m_chart, 1);
    splitter->addWidget(chartPane);
    splitter->addWidget(m_report);
    splitter->setStretchFactor(0, 2);
    splitter->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_status);
    layout->addWidget(splitter, 1);
    layout->addWidget(buttons);
    connect(m_sweep, &QComboBox::currentIndexChanged, this, [this](int) { showSweepChart(); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_store, &QPushButton::clicked, this, [this] { store(); });
    connect(m_cluster, &QComboBox::currentIndexChanged, this, [this](int) { analyse(); });
    analyse();
}

void NcclTestsDialog::setClusterIndex(int index) { m_cluster->setCurrentIndex(index); }

int NcclTestsDialog::runCommand(const std::vector<std::string>& extra, std::string& out, std::string& err) const
{
    std::vector<std::string> args { m_logPath.toStdString() };
    QTemporaryFile scenarioFile(QDir::tempPath() + QStringLiteral("/clusterscope-nccltests-XXXXXX.json"));
    const int index = m_cluster->currentIndex();
    if (index > 0 && index <= int(m_scenarios.size())) {
        if (!scenarioFile.open()) {
            err = "cannot write a temporary scenario file: " + scenarioFile.errorString().toStdString();
            return 1;
        }
        scenarioFile.write(QByteArray::fromStdString(engine::scenarioToJson(m_scenarios[std::size_t(index - 1)])));
        scenarioFile.flush();
        args.push_back("--scenario");
        args.push_back(scenarioFile.fileName().toStdString());
    }
    args.insert(args.end(), extra.begin(), extra.end());
    std::ostringstream o, e;
    const int code = runImportNcclTestsCommand(args, CliIo { o, e });
    out = o.str();
    err = e.str();
    return code;
}

void NcclTestsDialog::analyse()
{
    m_result = {};
    m_error.clear();
    std::string out, err;
    if (runCommand({ "--json" }, out, err) != 0) {
        m_error = QString::fromStdString(err).trimmed();
    } else {
        QJsonParseError parseError;
        const QJsonDocument doc = QJsonDocument::fromJson(QByteArray::fromStdString(out), &parseError);
        if (parseError.error != QJsonParseError::NoError || !doc.isObject())
            m_error = tr("internal error: the import's JSON cannot be read (%1)").arg(parseError.errorString());
        else
            m_result = doc.object();
    }
    if (!m_error.isEmpty()) {
        m_status->setText(tr("<b>Cannot compare this log with the model:</b> %1").arg(m_error.toHtmlEscaped())
            + (m_cluster->currentIndex() == 0 && !m_scenarios.empty()
                    ? tr("<br>Pick a scenario above for the cluster the log ran on.")
                    : QString()));
        m_report->clear();
    } else {
        m_status->setText(tr("Measured against the model's prediction for the cluster below, before and after "
                             "calibrating the model to this log. Residual = model / measured time - 1."));
        m_report->setHtml(renderHtml());
    }
    const QSignalBlocker block(m_sweep);
    m_sweep->clear();
    for (const QJsonValue sweepValue : m_result.value(QStringLiteral("sweeps")).toArray()) {
        const QJsonObject sweep = sweepValue.toObject();
        const QString variant = sweep.value(QStringLiteral("variant")).toString();
        m_sweep->addItem(tr("%1%2, %3 ranks on %4 node(s)")
                             .arg(sweep.value(QStringLiteral("op")).toString(),
                                 variant.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(variant))
                             .arg(sweep.value(QStringLiteral("ranks")).toInt())
                             .arg(sweep.value(QStringLiteral("nodes")).toInt()));
    }
    m_sweep->setVisible(m_sweep->count() > 1);
    showSweepChart();
    m_store->setEnabled(m_error.isEmpty() && !m_projectPath.isEmpty());
}

bool NcclTestsDialog::store()
{
    if (m_projectPath.isEmpty() || !m_error.isEmpty())
        return false;
    std::string out, err;
    if (runCommand({ "--project", m_projectPath.toStdString() }, out, err) != 0) {
        m_status->setText(
            tr("<b>The calibration was not stored:</b> %1").arg(QString::fromStdString(err).trimmed().toHtmlEscaped()));
        return false;
    }
    m_status->setText(tr("Calibration stored in %1: the analyses of this project now use it.")
                          .arg(QFileInfo(m_projectPath).fileName().toHtmlEscaped()));
    Q_EMIT stored();
    return true;
}

QString NcclTestsDialog::reportText() const { return m_report->toPlainText(); }

void NcclTestsDialog::showSweepChart()
{
    auto* chart = new QChart;
    chart->legend()->setAlignment(Qt::AlignBottom);
    const QJsonArray sweeps = m_result.value(QStringLiteral("sweeps")).toArray();
    const int index = m_sweep->currentIndex();
    if (index >= 0 && index < sweeps.size()) {
        const QJsonObject sweep = sweeps[index].toObject();
        chart->setTitle(tr("%1: bus bandwidth against message size").arg(m_sweep->currentText()));
        auto* measured = new QLineSeries;
        measured->setName(tr("measured"));
        auto* leftOut = new QScatterSeries;
        leftOut->setName(tr("measured, left out of the fit"));
        leftOut->setMarkerSize(9);
        leftOut->setColor(QColor(150, 150, 150));
        auto* before = new QLineSeries;
        before->setName(tr("model"));
        before->setPen(QPen(QColor(90, 90, 90), 2, Qt::DashLine));
        auto* after = new QLineSeries;
        after->setName(tr("model calibrated to this log"));
        after->setPen(QPen(QColor(230, 120, 20), 2));
        double top = 0, smallest = 0, largest = 0;
        for (const QJsonValue rowValue : sweep.value(QStringLiteral("sizes")).toArray()) {
            const QJsonObject r = rowValue.toObject();
            const double bytes = r.value(QStringLiteral("bytes")).toDouble();
            const double m = r.value(QStringLiteral("measured_busbw_gbps")).toDouble();
            const double b = r.value(QStringLiteral("before_busbw_gbps")).toDouble();
            const double a = r.value(QStringLiteral("after_busbw_gbps")).toDouble();
            if (!(bytes > 0))
                continue;
            QXYSeries* kept = measured;
            (r.value(QStringLiteral("outlier")).toBool() ? leftOut : kept)->append(bytes, m);
            before->append(bytes, b);
            after->append(bytes, a);
            top = std::max({ top, m, b, a });
            smallest = smallest > 0 ? std::min(smallest, bytes) : bytes;
            largest = std::max(largest, bytes);
        }
        auto* x = new QLogValueAxis;
        x->setBase(2);
        x->setLabelFormat(QStringLiteral("%.0f"));
        x->setTitleText(tr("message size (bytes, log scale)"));
        x->setRange(smallest > 0 ? smallest / 1.5 : 1, largest > 0 ? largest * 1.5 : 2);
        auto* y = new QValueAxis;
        y->setTitleText(tr("busbw (GB/s)"));
        y->setRange(0, top > 0 ? top * 1.1 : 1);
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        y->applyNiceNumbers();
        // The measurement thick with its points, the calibrated model it should match thin on top of it.
        measured->setPointsVisible(true);
        measured->setPen(QPen(QColor(40, 110, 190), 4));
        for (QXYSeries* series : std::initializer_list<QXYSeries*> { before, measured, leftOut, after }) {
            chart->addSeries(series);
            series->attachAxis(x);
            series->attachAxis(y);
        }
    }
    QChart* old = m_chart->chart();
    m_chart->setChart(chart);
    delete old;
}

QString NcclTestsDialog::renderHtml() const
{
    QString html;
    for (const QJsonValue logValue : m_result.value(QStringLiteral("logs")).toArray()) {
        const QJsonObject log = logValue.toObject();
        html += QStringLiteral("<h3>%1</h3>").arg(str(log.value(QStringLiteral("file"))));
        for (const QJsonValue runValue : log.value(QStringLiteral("runs")).toArray()) {
            const QJsonObject run = runValue.toObject();
            const QString binary = run.value(QStringLiteral("binary")).toString();
            html += QStringLiteral("<p><b>%1</b> (%2): %3 ranks on %4 node(s), %5; %6 sizes</p>")
                        .arg(binary.isEmpty() ? QStringLiteral("nccl-tests") : binary.toHtmlEscaped(),
                            str(run.value(QStringLiteral("collective"))))
                        .arg(run.value(QStringLiteral("ranks")).toInt())
                        .arg(std::max(1, run.value(QStringLiteral("nodes")).toInt()))
                        .arg(str(run.value(QStringLiteral("gpu"))))
                        .arg(run.value(QStringLiteral("rows")).toInt());
            const QJsonObject it = run.value(QStringLiteral("iterations")).toObject();
            if (!it.isEmpty()) {
                QStringList noisy;
                for (const QJsonValue s : it.value(QStringLiteral("sizes")).toArray())
                    if (s.toObject().value(QStringLiteral("noisy")).toBool())
                        noisy << tr("%1 B (cv %2%, slowest %3x)")
                                     .arg(s.toObject().value(QStringLiteral("bytes")).toDouble(), 0, 'f', 0)
                                     .arg(s.toObject().value(QStringLiteral("cv_pct")).toDouble(), 0, 'f', 1)
                                     .arg(s.toObject().value(QStringLiteral("spike")).toDouble(), 0, 'f', 2);
                html += tr("<p>Per-iteration timing (-I): %1</p>")
                            .arg(noisy.isEmpty() ? tr("no noisy size")
                                                 : tr("noisy sizes (cv above 5% or slowest iteration above 1.5x "
                                                      "the mean): %1")
                                                       .arg(noisy.join(QStringLiteral(", "))));
                const QJsonObject straggler = it.value(QStringLiteral("straggler")).toObject();
                if (!straggler.isEmpty())
                    html += tr("<p>Slowest process: %1 (%2) at %3 of %4 sizes, its mean iteration %5 above the "
                               "fastest process's there</p>")
                                .arg(straggler.value(QStringLiteral("process")).toInt())
                                .arg(str(straggler.value(QStringLiteral("host"))))
                                .arg(straggler.value(QStringLiteral("sizes")).toInt())
                                .arg(straggler.value(QStringLiteral("of_sizes")).toInt())
                                .arg(percent(straggler.value(QStringLiteral("mean_excess")).toDouble()));
            }
        }
        for (const QJsonValue d : log.value(QStringLiteral("diagnostics")).toArray())
            html += QStringLiteral("<p style='color:#8a5a00'>%1: %2</p>")
                        .arg(str(d.toObject().value(QStringLiteral("severity"))),
                            str(d.toObject().value(QStringLiteral("message"))));
    }
    const QJsonObject cluster = m_result.value(QStringLiteral("cluster")).toObject();
    html += tr("<p><b>Cluster</b>: %1 x %2 (%3 per node), %4 x %5 Gb/s NICs per node, %6</p>")
                .arg(cluster.value(QStringLiteral("gpus")).toInt())
                .arg(str(cluster.value(QStringLiteral("gpu"))))
                .arg(cluster.value(QStringLiteral("gpus_per_node")).toInt())
                .arg(cluster.value(QStringLiteral("nics_per_node")).toInt())
                .arg(cluster.value(QStringLiteral("nic_gbps")).toDouble())
                .arg(str(cluster.value(QStringLiteral("transport"))));
    for (const QJsonValue a : cluster.value(QStringLiteral("assumptions")).toArray())
        html += QStringLiteral("<p style='color:#555'>%1</p>").arg(str(a));
    for (const QJsonValue s : m_result.value(QStringLiteral("skipped")).toArray())
        html += tr("<p style='color:#8a5a00'>skipped: %1</p>").arg(str(s));

    for (const QJsonValue sweepValue : m_result.value(QStringLiteral("sweeps")).toArray()) {
        const QJsonObject sweep = sweepValue.toObject();
        const QString variant = sweep.value(QStringLiteral("variant")).toString();
        html += tr("<h3>%1%2, %3 ranks on %4 node(s)</h3>")
                    .arg(str(sweep.value(QStringLiteral("op"))),
                        variant.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(variant.toHtmlEscaped()))
                    .arg(sweep.value(QStringLiteral("ranks")).toInt())
                    .arg(sweep.value(QStringLiteral("nodes")).toInt());
        html += QStringLiteral("<table border='1' cellspacing='0' cellpadding='3'><tr>");
        for (const QString& h :
            { tr("size (B)"), tr("measured us"), tr("busbw GB/s"), tr("model us"), tr("busbw"), tr("residual"),
                tr("calibrated us"), tr("busbw"), tr("residual"), tr("algorithm/protocol"), tr("note") })
            html += QStringLiteral("<th>%1</th>").arg(h);
        html += QStringLiteral("</tr>");
        for (const QJsonValue rowValue : sweep.value(QStringLiteral("sizes")).toArray()) {
            const QJsonObject r = rowValue.toObject();
            auto num = [&](const char* key) { return r.value(QLatin1String(key)).toDouble(); };
            const bool outlier = r.value(QStringLiteral("outlier")).toBool();
            html += QStringLiteral("<tr%1>").arg(outlier ? QStringLiteral(" style='color:#999'") : QString());
            html += QStringLiteral("<td align='right'>%1</td><td align='right'>%2</td><td align='right'>%3</td>"
                                   "<td align='right'>%4</td><td align='right'>%5</td><td align='right'>%6</td>"
                                   "<td align='right'>%7</td><td align='right'>%8</td><td align='right'>%9</td>")
                        .arg(QString::number(num("bytes"), 'f', 0), QString::number(num("measured_us"), 'f', 1),
                            sig3(num("measured_busbw_gbps")), QString::number(num("before_us"), 'f', 1),
                            sig3(num("before_busbw_gbps")), percent(num("residual_before")),
                            QString::number(num("after_us"), 'f', 1), sig3(num("after_busbw_gbps")),
                            percent(num("residual_after")));
            html += QStringLiteral("<td>%1/%2</td><td>%3</td></tr>")
                        .arg(str(r.value(QStringLiteral("algorithm_before"))),
                            str(r.value(QStringLiteral("protocol_before"))),
                            outlier ? str(r.value(QStringLiteral("outlier_reason"))) : QString());
        }
        html += QStringLiteral("</table>");
        html += tr("<p>RMS relative residual: %1 uncalibrated, %2 calibrated")
                    .arg(percent(sweep.value(QStringLiteral("rms_before")).toDouble()),
                        percent(sweep.value(QStringLiteral("rms_after")).toDouble()));
        if (sweep.value(QStringLiteral("held_out_rms_before")).toDouble() > 0)
            html += tr("; held-out sizes (4-fold cross-validation): %1 uncalibrated, %2 calibrated%3")
                        .arg(percent(sweep.value(QStringLiteral("held_out_rms_before")).toDouble()),
                            percent(sweep.value(QStringLiteral("held_out_rms_after")).toDouble()),
                            sweep.value(QStringLiteral("rejected_by_cross_validation")).toBool()
                                ? tr(" (calibration rejected: the model is kept as it is)")
                                : QString());
        html += QStringLiteral("</p>");
    }
    return html;
}

} // namespace clusterscope::app
