#pragma once

// An nccl-tests log opened in the GUI: measured against modelled time and busbw per size, before and
// after calibration, the outliers and noisy sizes, the per-iteration findings, and a button that
// stores the calibration in the project. It runs the very command `clusterscope-cli
// import-nccl-tests LOG --json` runs (in-process), so the GUI and the CLI tell the same numbers.

#include "engine/scenario/scenario.h"

#include <QDialog>
#include <QJsonObject>

#include <optional>
#include <vector>

class QChartView;
class QComboBox;
class QLabel;
class QPushButton;
class QTextBrowser;

namespace clusterscope::app {

class NcclTestsDialog : public QDialog {
    Q_OBJECT
public:
    /// `projectPath`: the project file the calibration is stored in (empty: the project has no file
    /// yet, nothing can be stored). The cluster is the log's own (its header: GPU, hosts), or one of
    /// `scenarios` the user picks (the only way for a table-only excerpt that names no GPU).
    NcclTestsDialog(
        QString logPath, QString projectPath, std::vector<engine::Scenario> scenarios, QWidget* parent = nullptr);

    /// Re-runs the analysis with the cluster of `index` (0: the log's header, i: scenarios[i-1]).
    void setClusterIndex(int index);
    /// The command's --json document of the last analysis; empty when it failed (see errorText()).
    const QJsonObject& result() const { return m_result; }
    QString errorText() const { return m_error; }
    QString reportText() const;
    QPushButton* storeButton() const { return m_store; }
    QComboBox* clusterCombo() const { return m_cluster; }
    /// Which sweep the chart shows (hidden with one sweep), and the chart: busbw against size,
    /// measured, modelled and calibrated, the sizes left out of the fit apart.
    QComboBox* sweepCombo() const { return m_sweep; }
    QChartView* chartView() const { return m_chart; }
    /// Stores the calibration in the project (import-nccl-tests --project); false with a message.
    bool store();

Q_SIGNALS:
    /// The project's collective calibration changed.
    void stored();

private:
    void analyse();
    /// Runs import-nccl-tests with `extra` arguments after the log and the cluster choice; the exit
    /// code, standard output and standard error.
    int runCommand(const std::vector<std::string>& extra, std::string& out, std::string& err) const;
    QString renderHtml() const;
    void showSweepChart();

    QString m_logPath;
    QString m_projectPath;
    std::vector<engine::Scenario> m_scenarios;
    QJsonObject m_result;
    QString m_error;
    QComboBox* m_cluster;
    QLabel* m_status;
    QComboBox* m_sweep;
    QChartView* m_chart;
    QTextBrowser* m_report;
    QPushButton* m_store;
};

} // namespace clusterscope::app
