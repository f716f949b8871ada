#include "app/gui/computecalibrationdialog.h"

#include "engine/catalog/catalog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QTextBrowser>
#include <QVBoxLayout>

#include <algorithm>

namespace clusterscope::app {

namespace {
    QString percent(double modelled, double measured)
    {
        return QLocale().toString(100.0 * (modelled / measured - 1.0), 'f', 1) + QLatin1Char('%');
    }
    QString seconds(double s) { return QLocale().toString(s, 'g', 4) + QStringLiteral(" s"); }
}

ComputeCalibrationDialog::ComputeCalibrationDialog(engine::StoredRun run, std::vector<engine::Scenario> scenarios,
    int scenarioIndex, const engine::Catalog& catalog, QWidget* parent)
    : QDialog(parent)
    , m_run(std::move(run))
    , m_scenarios(std::move(scenarios))
    , m_catalog(catalog)
    , m_scenario(new QComboBox(this))
    , m_warning(new QLabel(this))
    , m_summary(new QTextBrowser(this))
{
    setWindowTitle(tr("Calibrate compute from run \"%1\"").arg(QString::fromStdString(m_run.summary.name)));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    for (const engine::Scenario& s : m_scenarios)
        m_scenario->addItem(QString::fromStdString(s.name));
    form->addRow(tr("Scenario of the job the run measured:"), m_scenario);
    layout->addLayout(form);
    m_warning->setWordWrap(true);
    m_warning->setStyleSheet(QStringLiteral("QLabel { background: #fff4d6; padding: 6px; }"));
    layout->addWidget(m_warning);
    layout->addWidget(m_summary, 1);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
    m_store = buttons->addButton(tr("Store in the project"), QDialogButtonBox::AcceptRole);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    resize(760, 340);
    m_scenario->setCurrentIndex(std::clamp(scenarioIndex, 0, std::max(0, int(m_scenarios.size()) - 1)));
    connect(m_scenario, &QComboBox::currentIndexChanged, this, [this] { refit(); });
    refit();
}

int ComputeCalibrationDialog::scenarioIndex() const { return m_scenario->currentIndex(); }
void ComputeCalibrationDialog::setScenarioIndex(int index) { m_scenario->setCurrentIndex(index); }
QString ComputeCalibrationDialog::warningText() const { return m_warning->isHidden() ? QString() : m_warning->text(); }
QString ComputeCalibrationDialog::summaryText() const { return m_summary->toPlainText(); }

void ComputeCalibrationDialog::refit()
{
    m_fit.reset();
    const int index = m_scenario->currentIndex();
    if (index < 0 || index >= int(m_scenarios.size())) {
        m_warning->setText(tr("The project has no scenario to calibrate with."));
        m_warning->setVisible(true);
        m_summary->clear();
        m_store->setEnabled(false);
        return;
    }
    const engine::Scenario& s = m_scenarios[std::size_t(index)];
    QStringList warnings;
    for (const std::string& w : engine::runScenarioMismatches(m_run.summary, s))
        warnings << QString::fromStdString(w);
    if (!warnings.isEmpty())
        warnings << tr("Pick the scenario of the cluster and job the run measured: nothing can be stored.");
    auto fit = engine::calibrateComputeFromRun(m_run, s, m_catalog);
    QString html;
    if (!fit) {
        if (warnings.isEmpty())
            warnings << QString::fromStdString(fit.message());
    } else {
        m_fit = std::move(*fit);
        const engine::RunComputeCalibration& f = *m_fit;
        const engine::FitResidual& r = f.fit.residuals.front();
        html += tr(
            "<p>Measured over %1 step(s): median step <b>%2</b>, compute kernels %3. Fitted to the <b>%4</b>.</p>")
                    .arg(f.measured.steps)
                    .arg(seconds(f.measured.stepSeconds),
                        f.measured.computeSeconds > 0 ? seconds(f.measured.computeSeconds) : tr("not in the trace"),
                        QString::fromLatin1(engine::toString(f.quantity)));
        html += tr("<table border=1 cellspacing=0 cellpadding=4><tr><th></th><th>before</th><th>after</th></tr>"
                   "<tr><td>Modelled %1 (measured %2)</td><td align=right>%3 (%4)</td><td align=right>%5 (%6)</td></tr>"
                   "<tr><td>Modelled iteration of \"%7\"</td><td align=right>%8</td><td align=right>%9</td></tr>"
                   "</table>")
                    .arg(QString::fromLatin1(engine::toString(f.quantity)), seconds(r.measured), seconds(r.before),
                        percent(r.before, r.measured), seconds(r.after), percent(r.after, r.measured),
                        QString::fromStdString(s.name).toHtmlEscaped(), seconds(f.iterationSecondsBefore),
                        seconds(f.iterationSecondsAfter));
        html += tr("<p>GEMM fraction of peak %1, attention fraction of peak %2 on %3 %4. Stored in the project, it "
                   "applies to every scenario on this GPU and dtype in the views, the CLI (evaluate --project) and "
                   "the report.</p>")
                    .arg(f.fit.calibration.gemmPeakFraction.value_or(0.0), 0, 'f', 3)
                    .arg(f.fit.calibration.flashPeakFraction.value_or(0.0), 0, 'f', 3)
                    .arg(QString::fromStdString(f.fit.fittedGpu), QString::fromStdString(f.fit.fittedDtype));
        for (const std::string& w : f.warnings)
            html += QStringLiteral("<p><i>%1</i></p>").arg(QString::fromStdString(w).toHtmlEscaped());
    }
    m_warning->setText(warnings.join(QStringLiteral("\n")));
    m_warning->setVisible(!warnings.isEmpty());
    m_summary->setHtml(html);
    m_store->setEnabled(m_fit.has_value());
}

} // namespace clusterscope::app
