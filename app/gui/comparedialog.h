#pragma once

// View > Compare Scenarios: two scenarios of the project side by side (e.g. InfiniBand vs RoCE,
// 1:1 vs 3:1): the key figures with their difference, and both iteration breakdowns in one chart.
// Both analyses run on a worker.

#include "engine/analysis/scenarioanalysis.h"
#include "engine/scenario/scenario.h"

#include <QDialog>

#include <array>
#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QTableWidget;

namespace clusterscope::engine {
class Catalog;
class PriceBook;
}
namespace clusterscope::views {
class BreakdownChart;
}

namespace clusterscope::app {

class CompareDialog : public QDialog {
    Q_OBJECT
public:
    CompareDialog(const std::vector<engine::Scenario>& scenarios, int first, int second, const engine::Catalog& catalog,
        const engine::PriceBook& prices, QWidget* parent = nullptr);
    ~CompareDialog() override;

    /// Blocks (processing events) until the comparison is computed; for tests.
    void waitUntilDone();
    QTableWidget* table() const { return m_table; }

private:
    void compare();
    void showComparison(const std::array<std::shared_ptr<const engine::ScenarioAnalysis>, 2>& analyses);

    std::vector<engine::Scenario> m_scenarios;
    const engine::Catalog& m_catalog;
    const engine::PriceBook& m_prices;
    QComboBox* m_a;
    QComboBox* m_b;
    QTableWidget* m_table;
    views::BreakdownChart* m_chart;
    QLabel* m_status;
    int m_running = 0;
};

} // namespace clusterscope::app
